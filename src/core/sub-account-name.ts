/**
 * The warehouse account a sub-account is read as: `<master>-sub-<id>`. The fan-out names its
 * accounts so, and the master's `transactions` stream names a sub-account's ledger lines so.
 */
export function subAccountName(master: string, id: number): string {
  return `${master}-sub-${id}`;
}
