// A real OTLP/HTTP receiver for tests: a loopback server taking what an
// exporter (Deno's own, with OTEL_DENO=true) POSTs to /v1/traces and
// /v1/metrics as protobuf, decoded with protobufjs against the OTLP messages
// (opentelemetry-proto, the fields tests read).
import protobuf from "npm:protobufjs@8.8.1";

const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message Resource { repeated KeyValue attributes = 1; }
message Scope { string name = 1; string version = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; Status status = 15;
}
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message NumberDataPoint {
  repeated KeyValue attributes = 7; double as_double = 4; sfixed64 as_int = 6;
}
message HistogramDataPoint {
  repeated KeyValue attributes = 9; fixed64 count = 4; optional double sum = 5;
}
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; Sum sum = 7; Histogram histogram = 9; }
message ScopeMetrics { Scope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`;

const root = protobuf.parse(OTLP_PROTO, { keepCase: true }).root;
const TraceRequest = root.lookupType("otlp.ExportTraceServiceRequest");
const MetricsRequest = root.lookupType("otlp.ExportMetricsServiceRequest");

/** An attribute value as decoded (arrays as arrays, integers as numbers). */
export type Value = string | number | boolean | Value[] | null;

/** A span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, Value>;
  events: { name: string; attributes: Record<string, Value> }[];
  status: { code: number; message: string };
  service: string;
}

/** A metric data point as received. */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, Value>;
  /** The sum (histograms) or value (sums). */
  value: number;
  /** Recordings (histograms). */
  count?: number;
}

const hex = (b: Uint8Array | undefined) =>
  Array.from(b ?? [], (x) => x.toString(16).padStart(2, "0")).join("");

// deno-lint-ignore no-explicit-any
type Obj = any;

function valueOf(v: Obj): Value {
  if (!v) return null;
  if (v.string_value !== undefined) return v.string_value;
  if (v.bool_value !== undefined) return v.bool_value;
  if (v.int_value !== undefined) return Number(v.int_value);
  if (v.double_value !== undefined) return v.double_value;
  if (v.array_value) return (v.array_value.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: Obj[] | undefined): Record<string, Value> {
  return Object.fromEntries((list ?? []).map((kv: Obj) => [kv.key, valueOf(kv.value)]));
}

function spansOf(body: Uint8Array): ReceivedSpan[] {
  const req: Obj = TraceRequest.toObject(TraceRequest.decode(body), { defaults: false });
  return (req.resource_spans ?? []).flatMap((rs: Obj) => {
    const service = String(attributesOf(rs.resource?.attributes)["service.name"] ?? "");
    return (rs.scope_spans ?? []).flatMap((ss: Obj) =>
      (ss.spans ?? []).map((s: Obj): ReceivedSpan => ({
        traceId: hex(s.trace_id),
        spanId: hex(s.span_id),
        parentSpanId: hex(s.parent_span_id),
        name: s.name,
        kind: s.kind ?? 0,
        attributes: attributesOf(s.attributes),
        events: (s.events ?? []).map((e: Obj) => ({
          name: e.name,
          attributes: attributesOf(e.attributes),
        })),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        service,
      }))
    );
  });
}

function pointsOf(body: Uint8Array): ReceivedPoint[] {
  const req: Obj = MetricsRequest.toObject(MetricsRequest.decode(body), { defaults: false });
  return (req.resource_metrics ?? []).flatMap((rm: Obj) =>
    (rm.scope_metrics ?? []).flatMap((sm: Obj) =>
      (sm.metrics ?? []).flatMap((m: Obj) => {
        const unit = m.unit ?? "";
        const hist = (m.histogram?.data_points ?? []).map((p: Obj) => ({
          metric: m.name,
          unit,
          attributes: attributesOf(p.attributes),
          value: p.sum ?? 0,
          count: Number(p.count ?? 0),
        }));
        const sums = (m.sum?.data_points ?? []).map((p: Obj) => ({
          metric: m.name,
          unit,
          attributes: attributesOf(p.attributes),
          value: p.as_double ?? Number(p.as_int ?? 0),
        }));
        return [...hist, ...sums];
      })
    )
  );
}

/** A running receiver: what it got so far, and how to stop it. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: give it as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** Content types of the requests received, by path. */
  contentTypes: Map<string, string>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const contentTypes = new Map<string, string>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = new Uint8Array(await req.arrayBuffer());
    contentTypes.set(path, req.headers.get("content-type") ?? "");
    if (path === "/v1/traces") spans.push(...spansOf(body));
    else if (path === "/v1/metrics") points.push(...pointsOf(body));
    // An empty Export*ServiceResponse is a zero-length protobuf message.
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    points,
    contentTypes,
    close: () => server.shutdown(),
  };
}
