import { query } from '../db/named-sql';

/** Writes the secret `name` unless one is there already (the first process of a deployment wins). */
export const insertServiceSecret = query<{ name: string; value: string }, never>('service-secret-insert', `
insert into service_secret (name, value) values (:name::text, :value::text) on conflict (name) do nothing`);

/** The secret `name`, as every process of the deployment reads it. */
export const selectServiceSecret = query<{ name: string }, { value: string }>('service-secret-select', `
select value from service_secret where name = :name::text`);
