// Values global-setup.ts hands to test files through vitest's provide/inject.
declare module "vitest" {
  export interface ProvidedContext {
    /** Superuser (or CREATEDB) connection to the run's Postgres server. */
    testPostgresAdminUrl: string;
    /** A database with every migration applied, copied by createTestDatabase(). */
    testDatabaseTemplate: string;
    /** Prefix of every database this run creates, so teardown can find them all. */
    testDatabasePrefix: string;
  }
}

export {};
