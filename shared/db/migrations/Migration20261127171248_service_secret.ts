import { Migration } from '@mikro-orm/migrations';

/**
 * Secrets the service makes for itself (shared/auth/jwt-secret.ts): without JWT_SECRET, the first
 * process to start writes a random signing key here, and every process of the deployment (the API, the
 * workers, several API processes) reads the same one, across restarts. Nobody outside the database
 * knows it, so no token can be forged with a secret published anywhere.
 */
export class Migration20261127171248_service_secret extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table service_secret (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists service_secret;');
  }
}
