/**
 * The demo workspace's files, embedded as strings so the catalog works when
 * imported from a remote URL (no relative file reads). {@link createWorkspace}
 * writes them into a fresh folder; nothing here is ever modified.
 *
 * @module
 */

/**
 * `errors.log`: the largest file; one line reports a worker timeout.
 *
 * @example
 * ```ts
 * import { ERRORS_LOG } from "./fixtures.ts";
 * console.log(ERRORS_LOG.includes("worker 7 timed out after 30000 ms")); // true
 * ```
 */
export const ERRORS_LOG: string =
  `2025-03-14T08:00:01.112Z INFO  scheduler: starting 12 workers (queue=ingest, batch=500)
2025-03-14T08:00:01.530Z INFO  worker 1 ready (pid 4121)
2025-03-14T08:00:01.534Z INFO  worker 2 ready (pid 4122)
2025-03-14T08:00:01.541Z INFO  worker 3 ready (pid 4123)
2025-03-14T08:00:01.552Z INFO  worker 7 ready (pid 4127)
2025-03-14T08:02:17.804Z WARN  worker 3 slow batch: 500 rows in 8412 ms (threshold 5000 ms)
2025-03-14T08:05:44.019Z ERROR worker 5 failed to parse row 18233: unexpected token '}' at column 88
2025-03-14T08:05:44.020Z INFO  worker 5 skipped row 18233 and continued
2025-03-14T08:11:02.377Z WARN  db pool: 19 of 20 connections in use
2025-03-14T08:11:09.951Z ERROR worker 2 insert rejected: duplicate key value violates unique constraint "events_pkey"
2025-03-14T08:11:09.952Z INFO  worker 2 retrying batch 7710 with upsert
2025-03-14T08:14:30.600Z ERROR worker 7 timed out after 30000 ms waiting for db connection
2025-03-14T08:14:30.601Z INFO  scheduler: requeued batch 7731 (attempt 2 of 5)
2025-03-14T08:14:31.222Z INFO  worker 7 restarted (pid 4188)
2025-03-14T08:19:55.470Z WARN  disk /var/lib/ingest at 91% (threshold 90%)
2025-03-14T08:23:12.003Z ERROR worker 9 upstream 502 Bad Gateway from https://api.example.com/v2/events
2025-03-14T08:23:12.640Z INFO  worker 9 upstream recovered after 1 retry
2025-03-14T08:30:00.000Z INFO  scheduler: checkpoint written (processed=412800, failed=3)
2025-03-14T08:41:27.318Z ERROR worker 11 out of memory: heap limit 512 MB reached, batch 7902 aborted
2025-03-14T08:41:27.900Z INFO  scheduler: requeued batch 7902 (attempt 2 of 5)
2025-03-14T08:41:28.455Z INFO  worker 11 restarted (pid 4240)
2025-03-14T08:52:03.771Z WARN  db pool: connection reset by peer, reconnecting
2025-03-14T08:52:04.102Z INFO  db pool: reconnected (20 connections)
2025-03-14T09:00:00.000Z INFO  scheduler: checkpoint written (processed=688150, failed=5)
2025-03-14T09:04:16.588Z ERROR worker 4 certificate verify failed for api.example.com: certificate has expired
2025-03-14T09:04:16.590Z INFO  scheduler: paused queue=ingest until operator acknowledges
`;

/**
 * `access.log`: a few web-server access lines.
 *
 * @example
 * ```ts
 * import { ACCESS_LOG } from "./fixtures.ts";
 * console.log(ACCESS_LOG.split("\n")[0]);
 * ```
 */
export const ACCESS_LOG: string =
  `203.0.113.7 - - [14/Mar/2025:08:01:12 +0000] "GET /api/v2/status HTTP/1.1" 200 84 "-" "curl/8.5.0"
198.51.100.23 - - [14/Mar/2025:08:03:40 +0000] "POST /api/v2/events HTTP/1.1" 202 17 "-" "ingest-client/3.1"
198.51.100.23 - - [14/Mar/2025:08:03:41 +0000] "POST /api/v2/events HTTP/1.1" 202 17 "-" "ingest-client/3.1"
192.0.2.44 - - [14/Mar/2025:08:07:05 +0000] "GET /dashboard HTTP/1.1" 200 5120 "-" "Mozilla/5.0"
192.0.2.44 - - [14/Mar/2025:08:07:06 +0000] "GET /static/app.js HTTP/1.1" 304 0 "/dashboard" "Mozilla/5.0"
203.0.113.7 - - [14/Mar/2025:08:14:29 +0000] "GET /api/v2/status HTTP/1.1" 503 61 "-" "curl/8.5.0"
198.51.100.23 - - [14/Mar/2025:08:23:12 +0000] "POST /api/v2/events HTTP/1.1" 502 0 "-" "ingest-client/3.1"
192.0.2.91 - - [14/Mar/2025:08:44:50 +0000] "GET /admin HTTP/1.1" 403 9 "-" "python-requests/2.31"
`;

/**
 * `notes.txt`: an operator's short note.
 *
 * @example
 * ```ts
 * import { NOTES_TXT } from "./fixtures.ts";
 * console.log(NOTES_TXT.includes("Remember to rotate your logs.")); // true
 * ```
 */
export const NOTES_TXT: string = `On-call notes, week 11

- Remember to rotate your logs. errors.log grows fastest.
- The db pool is sized at 20; raise it before the Friday import.
- api.example.com certificate expires soon: ask the platform team.
`;

/**
 * The demo files by name, in the order they are written.
 *
 * @example
 * ```ts
 * import { FIXTURES } from "./fixtures.ts";
 * console.log(Object.keys(FIXTURES)); // ["access.log", "errors.log", "notes.txt"]
 * ```
 */
export const FIXTURES: Readonly<Record<string, string>> = Object.freeze({
  "access.log": ACCESS_LOG,
  "errors.log": ERRORS_LOG,
  "notes.txt": NOTES_TXT,
});
