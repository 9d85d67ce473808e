/** The slice of @testcontainers/postgresql the global setup uses (the package is optional, not installed by default). */
export interface StartedContainer {
  getConnectionUri(): string;
  stop(): Promise<unknown>;
}

/** Constructor shape of PostgreSqlContainer. */
export declare const PostgreSqlContainer: new (image: string) => { start(): Promise<StartedContainer> };
