import { sql } from 'kysely';
import type { Database, Executor } from './db.js';
import { prepared, preparedBySize } from './prepared.js';
import type { UserEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './schema.js';

/** Webhook endpoints, their deliveries and attempts (docs/api.md, "Events and webhooks"). */

export async function insertEndpoint(
  db: Executor,
  row: Omit<WebhookEndpoint, 'idEndpoint' | 'failingSince' | 'disabledAt' | 'strictOrder'> & {
    strictOrder?: number;
  },
): Promise<WebhookEndpoint> {
  return db
    .insertInto('webhookEndpoints')
    .values({ ...row, failingSince: null, disabledAt: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findEndpoint(db: Executor, idEndpoint: number): Promise<WebhookEndpoint | undefined> {
  return db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('idEndpoint', '=', idEndpoint)
    .executeTakeFirst();
}

export async function endpointsOfApps(db: Executor, idApps: number[]): Promise<WebhookEndpoint[]> {
  if (idApps.length === 0) return [];
  return db
    .selectFrom('webhookEndpoints')
    .selectAll()
    .where('idApp', 'in', idApps)
    .orderBy('idEndpoint')
    .execute();
}

export async function countEndpointsOfApp(db: Executor, idApp: number): Promise<number> {
  const r = await db
    .selectFrom('webhookEndpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('idApp', '=', idApp)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function updateEndpoint(
  db: Executor,
  idEndpoint: number,
  changes: Partial<
    Pick<WebhookEndpoint, 'enabled' | 'failingSince' | 'disabledAt' | 'url' | 'kinds' | 'strictOrder'>
  >,
): Promise<void> {
  await db.updateTable('webhookEndpoints').set(changes).where('idEndpoint', '=', idEndpoint).execute();
}

/** Deletes an endpoint with its deliveries and attempts. */
export async function deleteEndpoint(db: Executor, idEndpoint: number): Promise<boolean> {
  await db.deleteFrom('webhookAttempts').where('idEndpoint', '=', idEndpoint).execute();
  await db.deleteFrom('webhookDeliveries').where('idEndpoint', '=', idEndpoint).execute();
  const r = await db.deleteFrom('webhookEndpoints').where('idEndpoint', '=', idEndpoint).executeTakeFirst();
  return r.numDeletedRows === 1n;
}

/**
 * The enabled endpoints that hear a user: those of the user's own dedicated apps, and those of
 * every third-party app the user authorized (a live access token), of apps not revoked.
 */
export async function endpointsHearing(
  db: Executor,
  idUser: number,
  now: number,
): Promise<WebhookEndpoint[]> {
  return db
    .selectFrom('webhookEndpoints')
    .innerJoin('apps', 'apps.idApp', 'webhookEndpoints.idApp')
    .selectAll('webhookEndpoints')
    .where('webhookEndpoints.enabled', '=', 1)
    .where('apps.revokedAt', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([eb('apps.kind', '=', 'dedicated'), eb('apps.idUser', '=', idUser)]),
        eb.and([
          eb('apps.kind', '=', 'thirdParty'),
          eb.exists(
            eb
              .selectFrom('accessTokens')
              .select('accessTokens.idAccessToken')
              .whereRef('accessTokens.idApp', '=', 'apps.idApp')
              .where('accessTokens.idUser', '=', idUser)
              .where('accessTokens.revokedAt', 'is', null)
              .where((e) =>
                e.or([e('accessTokens.expiresAt', 'is', null), e('accessTokens.expiresAt', '>', now)]),
              ),
          ),
        ]),
      ]),
    )
    .orderBy('webhookEndpoints.idEndpoint')
    .execute();
}

/** Whether any endpoint is enabled at all: most marketplaces have none, and skip the fan-out. */
export async function anyEnabledEndpoint(db: Executor): Promise<boolean> {
  return (await enabledEndpoint(db)).length > 0;
}

// Compiled once: the outbox asks for every event it derives public events from.
const enabledEndpoint = prepared(
  (db) =>
    db
      .selectFrom('webhookEndpoints')
      .select('idEndpoint')
      .where('enabled', '=', sql.lit(1))
      .limit(sql.lit(1)),
  [],
);

export async function insertDeliveries(
  db: Executor,
  rows: Array<{ idEndpoint: number; idEvent: number }>,
  now: number,
): Promise<void> {
  if (rows.length === 0) return;
  await insertPendingDeliveries(db, rows, now);
}

// Prepared by size: a checkout queues a hundred deliveries, and building and compiling that
// statement through the query builder cost more than running it.
const insertPendingDeliveries = preparedBySize(
  (db: Executor, rows: Array<{ idEndpoint: number; idEvent: number }>, now: number) =>
    sql`insert into "webhookDeliveries" ("idEndpoint", "idEvent", "state", "attempts", "createdAt", "nextAttemptAt", "leaseUntil", "leaseToken", "finishedAt")
      values ${sql.join(rows.map((r) => sql`(${r.idEndpoint}, ${r.idEvent}, 'pending', 0, ${now}, ${now}, null, null, null)`))}`.compile(
      db,
    ),
  (rows) => rows.length,
  (rows, now) => rows.flatMap((r) => [r.idEndpoint, r.idEvent, now, now]),
);

export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: UserEvent;
  /** The attempt's record, written with the claim, to be completed with its outcome. */
  idAttempt: number;
}

/**
 * What an attempt's record says from its claim until its outcome is written: the record exists
 * before anything is sent, so an instance killed while sending leaves a trace of that attempt.
 */
export const ATTEMPT_UNDER_WAY = 'under way: no answer recorded yet';
/** What the record of such an attempt says once another claim finds its lease run out. */
export const ATTEMPT_INTERRUPTED =
  'interrupted: the instance sending it stopped before recording an answer (sent again)';

/**
 * Claims up to `limit` due deliveries for this instance until `leaseUntil` (real time). On
 * PostgreSQL the candidate rows are locked with `FOR UPDATE SKIP LOCKED`, so instances claiming at
 * once take disjoint sets instead of waiting on each other; SQLite has one writer at a time, and
 * its transaction alone keeps two claims apart. The update is conditional as well, so a row can
 * never be claimed twice while its lease runs.
 */
export async function claimDueDeliveries(
  database: Database,
  now: number,
  wallNow: number,
  leaseUntil: number,
  leaseToken: string,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const ids = await database.transaction(async (tx) => {
    let q = tx
      .selectFrom('webhookDeliveries')
      .select('idDelivery')
      .where('state', '=', 'pending')
      .where('nextAttemptAt', '<=', now)
      .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', wallNow)]))
      .where('idEndpoint', 'in', (eb) =>
        eb.selectFrom('webhookEndpoints').select('idEndpoint').where('enabled', '=', 1),
      )
      // Strict order: a delivery waits while an earlier one to the same endpoint is pending
      // (retrying, or in flight under a lease), so only the oldest is ever due.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhookDeliveries as earlier')
              .innerJoin('webhookEndpoints as strict', 'strict.idEndpoint', 'earlier.idEndpoint')
              .select('earlier.idDelivery')
              .whereRef('earlier.idEndpoint', '=', 'webhookDeliveries.idEndpoint')
              .whereRef('earlier.idDelivery', '<', 'webhookDeliveries.idDelivery')
              .where('earlier.state', '=', 'pending')
              .where('strict.strictOrder', '=', 1),
          ),
        ),
      )
      .orderBy('idDelivery')
      .limit(limit);
    if (database.dialect === 'postgres') q = q.forUpdate().skipLocked();
    const candidates = (await q.execute()).map((r) => r.idDelivery);
    if (candidates.length === 0) return [];
    // The attempt is counted when it is claimed, not when it is settled: one that never settles
    // (its instance was killed) still counts towards the backoff.
    const claimed = await tx
      .updateTable('webhookDeliveries')
      .set((eb) => ({ leaseUntil, leaseToken, attempts: eb('attempts', '+', 1) }))
      .where('idDelivery', 'in', candidates)
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', wallNow)]))
      .returning(['idDelivery', 'idEndpoint'])
      .execute();
    if (claimed.length === 0) return [];
    const claimedIds = claimed.map((r) => r.idDelivery);
    // A record still under way on a delivery claimed again belongs to a claim whose lease ran out.
    await tx
      .updateTable('webhookAttempts')
      .set({ response: ATTEMPT_INTERRUPTED })
      .where('idDelivery', 'in', claimedIds)
      .where('status', 'is', null)
      .where('response', '=', ATTEMPT_UNDER_WAY)
      .execute();
    const records = await tx
      .insertInto('webhookAttempts')
      .values(
        claimed.map((r) => ({
          idDelivery: r.idDelivery,
          idEndpoint: r.idEndpoint,
          at: now,
          status: null,
          durationMs: 0,
          response: ATTEMPT_UNDER_WAY,
        })),
      )
      .returning(['idAttempt', 'idDelivery'])
      .execute();
    return records;
  });
  if (ids.length === 0) return [];
  const attemptOf = new Map(ids.map((r) => [r.idDelivery, r.idAttempt]));
  const rows = await database.db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as e', 'e.idEndpoint', 'd.idEndpoint')
    .innerJoin('userEvents as u', 'u.idEvent', 'd.idEvent')
    .selectAll('d')
    .select([
      'e.idApp',
      'e.url',
      'e.kinds',
      'e.enabled',
      'e.salt',
      'e.createdAt as endpointCreatedAt',
      'e.failingSince',
      'e.disabledAt',
      'e.strictOrder',
      'u.idUser',
      'u.type',
      'u.createdAt as eventCreatedAt',
      'u.payload',
    ])
    .where('d.idDelivery', 'in', [...attemptOf.keys()])
    .orderBy('d.idDelivery')
    .execute();
  return rows.map((r) => ({
    delivery: {
      idDelivery: r.idDelivery,
      idEndpoint: r.idEndpoint,
      idEvent: r.idEvent,
      state: r.state,
      attempts: r.attempts,
      createdAt: r.createdAt,
      nextAttemptAt: r.nextAttemptAt,
      leaseUntil: r.leaseUntil,
      leaseToken: r.leaseToken,
      finishedAt: r.finishedAt,
    },
    endpoint: {
      idEndpoint: r.idEndpoint,
      idApp: r.idApp,
      url: r.url,
      kinds: r.kinds,
      enabled: r.enabled,
      salt: r.salt,
      createdAt: r.endpointCreatedAt,
      failingSince: r.failingSince,
      disabledAt: r.disabledAt,
      strictOrder: r.strictOrder,
    },
    event: {
      idEvent: r.idEvent,
      idUser: r.idUser,
      type: r.type,
      createdAt: r.eventCreatedAt,
      payload: r.payload,
    },
    idAttempt: attemptOf.get(r.idDelivery)!,
  }));
}

/**
 * Gives back claimed deliveries not sent after all (their turn came too late in the lease): they
 * are due again at once, for whichever instance claims them, as if never claimed.
 */
export async function releaseDeliveries(
  db: Executor,
  claims: Array<{ idDelivery: number; idAttempt: number }>,
  leaseToken: string,
): Promise<void> {
  if (claims.length === 0) return;
  const released = await db
    .updateTable('webhookDeliveries')
    .set((eb) => ({ leaseUntil: null, leaseToken: null, attempts: eb('attempts', '-', 1) }))
    .where(
      'idDelivery',
      'in',
      claims.map((c) => c.idDelivery),
    )
    .where('leaseToken', '=', leaseToken)
    .returning('idDelivery')
    .execute();
  const ids = new Set(released.map((r) => r.idDelivery));
  const records = claims.filter((c) => ids.has(c.idDelivery)).map((c) => c.idAttempt);
  if (records.length === 0) return;
  await db.deleteFrom('webhookAttempts').where('idAttempt', 'in', records).execute();
}

/**
 * Writes attempts' outcomes into the records their claims opened, in one statement (a statement
 * per attempt cost about a tenth of a delivery). The values are cast so that PostgreSQL knows
 * their types inside the `CASE`.
 */
export async function completeAttempts(
  db: Executor,
  outcomes: Array<Pick<WebhookAttempt, 'idAttempt' | 'at' | 'status' | 'durationMs' | 'response'>>,
): Promise<void> {
  if (outcomes.length === 0) return;
  const column = <K extends 'at' | 'status' | 'durationMs' | 'response'>(key: K, type: string) =>
    sql<WebhookAttempt[K]>`case ${sql.ref('idAttempt')} ${sql.join(
      outcomes.map((o) => sql`when ${o.idAttempt} then cast(${o[key]} as ${sql.raw(type)})`),
      sql` `,
    )} end`;
  await db
    .updateTable('webhookAttempts')
    .set({
      at: column('at', 'bigint'),
      status: column('status', 'integer'),
      durationMs: column('durationMs', 'integer'),
      response: column('response', 'text'),
    })
    .where(
      'idAttempt',
      'in',
      outcomes.map((o) => o.idAttempt),
    )
    .execute();
}

/**
 * Settles claimed deliveries that succeeded, while this instance's lease on each holds (see
 * `settleDelivery`).
 */
export async function settleDelivered(
  db: Executor,
  idDeliveries: number[],
  leaseToken: string,
  finishedAt: number,
): Promise<void> {
  if (idDeliveries.length === 0) return;
  await db
    .updateTable('webhookDeliveries')
    .set({ state: 'delivered', finishedAt, leaseUntil: null, leaseToken: null })
    .where('idDelivery', 'in', idDeliveries)
    .where('leaseToken', '=', leaseToken)
    .execute();
}

/**
 * Settles a claimed delivery: applies only while this instance's lease holds (a delivery whose
 * lease ran out may have been claimed by another instance, which then owns it).
 */
export async function settleDelivery(
  db: Executor,
  idDelivery: number,
  leaseToken: string,
  changes: Partial<Pick<WebhookDelivery, 'state' | 'nextAttemptAt' | 'finishedAt'>>,
): Promise<boolean> {
  const r = await db
    .updateTable('webhookDeliveries')
    .set({ ...changes, leaseUntil: null, leaseToken: null })
    .where('idDelivery', '=', idDelivery)
    .where('leaseToken', '=', leaseToken)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Gives up every pending delivery of an endpoint (it was disabled). */
export async function failPendingDeliveries(db: Executor, idEndpoint: number, now: number): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({ state: 'failed', finishedAt: now })
    .where('idEndpoint', '=', idEndpoint)
    .where('state', '=', 'pending')
    .execute();
}

export async function findDelivery(db: Executor, idDelivery: number): Promise<WebhookDelivery | undefined> {
  return db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('idDelivery', '=', idDelivery)
    .executeTakeFirst();
}

/** Queues a delivery again now, with a fresh three days (the "send again" button). */
export async function requeueDelivery(db: Executor, idDelivery: number, now: number): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({ state: 'pending', nextAttemptAt: now, createdAt: now, finishedAt: null })
    .where('idDelivery', '=', idDelivery)
    .execute();
}

export interface AttemptRow extends WebhookAttempt {
  idEvent: number;
  type: string;
  deliveryState: string;
}

/** An endpoint's latest attempts, newest first, with the event each was for. */
export async function attemptsOfEndpoint(
  db: Executor,
  idEndpoint: number,
  limit: number,
  offset = 0,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhookAttempts as a')
    .innerJoin('webhookDeliveries as d', 'd.idDelivery', 'a.idDelivery')
    .innerJoin('userEvents as u', 'u.idEvent', 'd.idEvent')
    .selectAll('a')
    .select(['d.idEvent', 'u.type', 'd.state as deliveryState'])
    .where('a.idEndpoint', '=', idEndpoint)
    .orderBy('a.idAttempt', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** How many attempts an endpoint has kept (its history is pruned after 30 days). */
export async function countAttemptsOfEndpoint(db: Executor, idEndpoint: number): Promise<number> {
  const row = await db
    .selectFrom('webhookAttempts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('idEndpoint', '=', idEndpoint)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deliveries of an endpoint, newest first (for the CLI and tests). */
export async function deliveriesOfEndpoint(db: Executor, idEndpoint: number): Promise<WebhookDelivery[]> {
  return db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('idEndpoint', '=', idEndpoint)
    .orderBy('idDelivery', 'desc')
    .execute();
}

/**
 * Forgets what is older than `before` (marketplace time): attempts, settled deliveries, and the
 * events no pending delivery still needs.
 */
export async function pruneWebhookHistory(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('webhookAttempts').where('at', '<', before).execute();
  await db
    .deleteFrom('webhookAttempts')
    .where('idDelivery', 'in', (eb) =>
      eb
        .selectFrom('webhookDeliveries')
        .select('idDelivery')
        .where('state', '!=', 'pending')
        .where('createdAt', '<', before),
    )
    .execute();
  await db
    .deleteFrom('webhookDeliveries')
    .where('state', '!=', 'pending')
    .where('createdAt', '<', before)
    .execute();
  await db
    .deleteFrom('userEvents')
    .where('createdAt', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhookDeliveries')
            .select(sql`1`.as('one'))
            .whereRef('webhookDeliveries.idEvent', '=', 'userEvents.idEvent'),
        ),
      ),
    )
    .execute();
}
