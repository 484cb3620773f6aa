// The binary protobuf encoding of an OTLP ExportTraceServiceRequest, decoded into the shape of its JSON encoding
// (ids as hex, enums as numbers) so the receiver keeps one reading of both (issue 41: http/protobuf end to end). The
// field numbers are those of opentelemetry-proto's trace/v1/trace.proto, common/v1/common.proto and
// collector/trace/v1/trace_service.proto; fields the tests never read (times, events, scopes) are skipped, and a
// field of the wrong wire type is an error the receiver records as a problem.
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

export type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
export type KeyValue = { key: string; value: AnyValue };

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number };
  links?: Array<{ traceId: string; spanId: string }>;
}

export interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: ExportedSpan[] }>;
  }>;
}

/** Reads each field of the message in `bytes`; `read` takes the ones it knows (true), the rest are skipped. */
function fields(bytes: Uint8Array, read: (field: number, wireType: WireType, reader: BinaryReader) => boolean): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!read(field, wireType, reader)) reader.skip(wireType, field);
  }
}

/** `wireType` checked to be what field `field` is declared with. */
function expect(field: number, wireType: WireType, expected: WireType): void {
  if (wireType !== expected) throw new Error(`field ${field}: wire type ${wireType}, expected ${expected}`);
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
/** A length-delimited field's bytes: an embedded message, or bytes (an id). */
const message = (field: number, wireType: WireType, reader: BinaryReader): Uint8Array => {
  expect(field, wireType, WireType.LengthDelimited);
  return reader.bytes();
};
const text = (field: number, wireType: WireType, reader: BinaryReader): string => {
  expect(field, wireType, WireType.LengthDelimited);
  return reader.string();
};
/** An int32 or an enum. */
const varint = (field: number, wireType: WireType, reader: BinaryReader): number => {
  expect(field, wireType, WireType.Varint);
  return reader.int32();
};

function anyValue(bytes: Uint8Array): AnyValue {
  const value: AnyValue = {};
  fields(bytes, (field, wireType, reader) => {
    if (field === 1) value.stringValue = text(field, wireType, reader);
    else if (field === 2) value.boolValue = varint(field, wireType, reader) !== 0;
    else if (field === 3) {
      expect(field, wireType, WireType.Varint);
      value.intValue = String(reader.int64());
    } else if (field === 4) {
      expect(field, wireType, WireType.Bit64);
      value.doubleValue = reader.double();
    } else return false;
    return true;
  });
  return value;
}

function keyValue(bytes: Uint8Array): KeyValue {
  const pair: KeyValue = { key: "", value: {} };
  fields(bytes, (field, wireType, reader) => {
    if (field === 1) pair.key = text(field, wireType, reader);
    else if (field === 2) pair.value = anyValue(message(field, wireType, reader));
    else return false;
    return true;
  });
  return pair;
}

function link(bytes: Uint8Array): { traceId: string; spanId: string } {
  const read = { traceId: "", spanId: "" };
  fields(bytes, (field, wireType, reader) => {
    if (field === 1) read.traceId = hex(message(field, wireType, reader));
    else if (field === 2) read.spanId = hex(message(field, wireType, reader));
    else return false;
    return true;
  });
  return read;
}

function status(bytes: Uint8Array): { code?: number } {
  const read: { code?: number } = {};
  fields(bytes, (field, wireType, reader) => {
    if (field !== 3) return false;
    read.code = varint(field, wireType, reader);
    return true;
  });
  return read;
}

function span(bytes: Uint8Array): ExportedSpan {
  const read: ExportedSpan & { attributes: KeyValue[]; links: Array<{ traceId: string; spanId: string }> } = {
    traceId: "",
    spanId: "",
    name: "",
    kind: 0,
    attributes: [],
    links: [],
  };
  fields(bytes, (field, wireType, reader) => {
    if (field === 1) read.traceId = hex(message(field, wireType, reader));
    else if (field === 2) read.spanId = hex(message(field, wireType, reader));
    else if (field === 4) read.parentSpanId = hex(message(field, wireType, reader));
    else if (field === 5) read.name = text(field, wireType, reader);
    else if (field === 6) read.kind = varint(field, wireType, reader);
    else if (field === 9) read.attributes.push(keyValue(message(field, wireType, reader)));
    else if (field === 13) read.links.push(link(message(field, wireType, reader)));
    else if (field === 15) read.status = status(message(field, wireType, reader));
    else return false;
    return true;
  });
  return read;
}

/** An ExportTraceServiceRequest in the binary encoding, as its JSON encoding would have said it. */
export function decodeTraceRequest(bytes: Uint8Array): ExportRequest {
  const request: Required<ExportRequest> = { resourceSpans: [] };
  fields(bytes, (field, wireType, reader) => {
    if (field !== 1) return false;
    const resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: ExportedSpan[] }> } = {
      resource: { attributes: [] },
      scopeSpans: [],
    };
    fields(message(field, wireType, reader), (inner, innerType, innerReader) => {
      if (inner === 1)
        fields(message(inner, innerType, innerReader), (attribute, attributeType, attributeReader) => {
          if (attribute !== 1) return false;
          resourceSpans.resource.attributes.push(keyValue(message(attribute, attributeType, attributeReader)));
          return true;
        });
      else if (inner === 2) {
        const spans: ExportedSpan[] = [];
        fields(message(inner, innerType, innerReader), (scopeField, scopeType, scopeReader) => {
          if (scopeField !== 2) return false;
          spans.push(span(message(scopeField, scopeType, scopeReader)));
          return true;
        });
        resourceSpans.scopeSpans.push({ spans });
      } else return false;
      return true;
    });
    request.resourceSpans.push(resourceSpans);
    return true;
  });
  return request;
}
