/** Request counts by route and status, for `GET /_sandbox/stats`. */
export class RequestStats {
  private readonly counts = new Map<string, Map<number | string, number>>();
  private total = 0;

  /** Counts one request by its status (or `hang`/`reset` when no complete answer was sent). */
  record(route: string, status: number | string): void {
    this.total += 1;
    let byStatus = this.counts.get(route);
    if (!byStatus) {
      byStatus = new Map();
      this.counts.set(route, byStatus);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  /** `{total, routes: {"GET /v1/cdr": {"200": 12, "429": 1}}}`. */
  snapshot(): { total: number; routes: Record<string, Record<string, number>> } {
    const routes: Record<string, Record<string, number>> = {};
    for (const [route, byStatus] of this.counts) routes[route] = Object.fromEntries(byStatus);
    return { total: this.total, routes };
  }
}
