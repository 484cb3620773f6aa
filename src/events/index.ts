// The events of the platform and the transactional outbox that records them (src/webhook delivers them).
export { eventBody, eventTypes, isEventType, type EventAudience, type EventType, type NewEvent } from "./events.js";
export { newEventId, outboxValues, recordEvent, type OutboxValues } from "./outbox.js";
export { eventDataSchemaNames, eventDataSchemas, eventDescriptions, webhookHeaders } from "./event-schemas.js";
