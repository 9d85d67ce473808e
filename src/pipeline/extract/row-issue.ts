/** One validation problem of a row, as stored in `etl.rejects.issues`. */
export interface RowIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}
