# syntax=docker/dockerfile:1
# The service image: one image for every process role. The default command is `npm start` (API and
# every worker in one process, migrations applied, demo seeded on an empty database); the compose
# file runs the roles as separate containers from this same image.
# TypeScript runs through tsx (a runtime dependency), as the npm scripts do, so there is no build step.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# SCARF_ANALYTICS: a dependency of swagger-ui-express reports installs home unless told not to.
RUN SCARF_ANALYTICS=false npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PATH=/app/node_modules/.bin:$PATH \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# Files stay owned by root: the process (user node) can read its code but not change it.
USER node
EXPOSE 3000
# `npm start` without npm: npm hands SIGTERM to the `sh -c` it runs the script in, and Debian's dash
# dies without passing it on, so `docker stop` would end the service with SIGKILL instead of the
# orderly shutdown (docs/operations.md). tsx passes signals to the node process it starts.
# NODE_ENV=production requires JWT_SECRET.
CMD ["tsx", "services/main.ts"]
