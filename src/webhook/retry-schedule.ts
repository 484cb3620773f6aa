// The retry schedule (Standard Webhooks' suggestion, WEBHOOK_RETRY_SCHEDULE_SECONDS): after a failed attempt n
// (1-based), the next one starts schedule[n-1] seconds later; once the schedule is spent the delivery has failed.

/** Seconds until the attempt after failed attempt `attempt`, or undefined when no attempt follows. */
export function retryDelaySeconds(schedule: readonly number[], attempt: number): number | undefined {
  return attempt >= 1 && attempt <= schedule.length ? schedule[attempt - 1] : undefined;
}
