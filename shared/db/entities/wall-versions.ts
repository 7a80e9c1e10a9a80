/**
 * A wall's actor holds the wall's rows in memory and decides its commands from them, fenced by the
 * wall's `version` (Wall entity): every write to a row it holds must move that version, or the actor
 * decides from rows that are no longer there (docs/architecture.md "Changes from outside"). The
 * database does it, whoever writes (an upload, a ship, the ORM, a statement typed by hand): these
 * tables carry triggers that move the version of the walls holding the rows written (migration
 * 20261127200500; row-level on the rows only the actor writes, 20261203070000), and a wall row's own
 * update moves it (wall_version_bump).
 *
 * A table the actor starts to load (workers/sorting/queries/wall-load.queries.ts, the barcode cache's
 * statements) needs its trigger, in a migration, and its line here;
 * test/integration/wall-version-triggers.test.ts reads the triggers of the migrated database and the
 * tables the actor's statements read, and names a table without one.
 */
export const WALL_VERSIONED_TABLES = ['sort_box', 'sorter_session', 'sort_box_item', 'orders', 'order_item', 'picklist_order', 'product_code', 'product'] as const;

/**
 * The application_name of the wall actors' connections (their pool: shared/db/sql-pool.ts). The actor's
 * own write moves its wall's version itself (its fence), so every trigger above leaves connections of
 * this name out (`when (current_setting('application_name') <> …)`). No other connection may carry it:
 * its writes would reach no actor. A name, not a setting passed at connect: every pooler passes
 * application_name on.
 */
export const WALL_ACTOR_APPLICATION_NAME = 'sorting:wall-actor';
