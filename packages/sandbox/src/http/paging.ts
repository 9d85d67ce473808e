import type { Pagination } from "@telecom-etl/platform/common.js";
import { positiveIntParam } from "./http-kit.js";

/** A requested page: 1-based `page`, `perPage` after the cap. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}

/** Reads `page` (default 1) and `per_page` (default 25, capped at `maxPerPage`). */
export function readPaging(query: URLSearchParams, maxPerPage: number): PageRequest {
  const page = positiveIntParam(query, "page", 1);
  const perPage = Math.min(positiveIntParam(query, "per_page", 25), maxPerPage);
  return { page, perPage };
}

/** The pagination object; `total_pages` is 0 for an empty list. */
export function paginationOf(request: PageRequest, total: number): Pagination {
  return {
    current_page: request.page,
    per_page: request.perPage,
    total,
    total_pages: Math.ceil(total / request.perPage),
  };
}

/** The slice of `rows` a page covers (empty past the last page). */
export function pageSlice<T>(rows: readonly T[], request: PageRequest): T[] {
  const start = (request.page - 1) * request.perPage;
  return rows.slice(start, start + request.perPage);
}
