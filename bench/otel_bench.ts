/**
 * What OpenTelemetry costs a turn: reins's own time per turn on runaway (100
 * turns) with no observer, with the observer the runtime always passes but no
 * SDK registered (telemetry off), with an SDK recording in process (batch span
 * processor, a metric reader), and in a child process with Deno's own exporter
 * (`OTEL_DENO=true`, OTLP to a loopback endpoint that answers 200).
 *
 * @module
 */
import { BasicTracerProvider, BatchSpanProcessor } from "npm:@opentelemetry/sdk-trace-base@2.12.1";
import { MeterProvider, MetricReader } from "npm:@opentelemetry/sdk-metrics@2.12.1";
import { openTelemetry, openTelemetryWith } from "../otel/open_telemetry.ts";
import { progress } from "./instrument.ts";
import { ownPerTurn } from "./otel_child.ts";
import { dur, type Row, verdict } from "./table.ts";

/** Own ms per turn with and without the observer, and the median paired ratio. */
type Paired = { none: number; observed: number; ratio: number };

/** Median own ms per turn of each variant, each against its own no-observer runs. */
export interface OtelResult {
  off: Paired;
  sdk: Paired;
  deno: Paired | Error;
  /** OTLP bytes Deno's exporter sent per run. */
  denoBytesPerRun: number;
  runs: number;
}

class Reader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function inProcessSdk(runs: number) {
  const exporter = {
    export: (_: unknown[], done: (r: { code: number }) => void) => done({ code: 0 }),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 })],
  });
  const meters = new MeterProvider({ readers: [new Reader()] });
  const observe = openTelemetryWith({
    tracer: provider.getTracer("reins"),
    meter: meters.getMeter("reins"),
  });
  try {
    return await ownPerTurn(observe, runs);
  } finally {
    await Promise.all([provider.shutdown(), meters.shutdown()]);
  }
}

async function denoExporter(runs: number): Promise<{ result: OtelResult["deno"]; bytes: number }> {
  let bytes = 0;
  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    bytes += (await req.arrayBuffer()).byteLength;
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./otel_child.ts", import.meta.url).pathname, String(runs)],
      env: {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.addr.port}`,
        OTEL_SERVICE_NAME: "reins-bench",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr).slice(0, 200));
    return { result: JSON.parse(text), bytes: bytes / (runs + 2) };
  } catch (e) {
    return { result: e instanceof Error ? e : new Error(String(e)), bytes: NaN };
  } finally {
    await sink.shutdown();
  }
}

/** Measures every variant ({@link OtelResult}). */
export async function benchOtel(runs = 9): Promise<OtelResult> {
  progress(`OpenTelemetry: runaway x100, without / with the observer, 3 setups x ${runs} runs`);
  const off = await ownPerTurn(openTelemetry(), runs * 2);
  const sdk = await inProcessSdk(runs);
  const deno = await denoExporter(runs);
  return { off, sdk, deno: deno.result, denoBytesPerRun: deno.bytes, runs };
}

/** Rows (section 9) and target lines for `r`. */
export function otelReport(r: OtelResult): { rows: Row[]; targets: string[] } {
  const row = (label: string, v: Paired): Row => [
    "9",
    label,
    dur(v.observed),
    dur(v.none),
    `${v.ratio.toFixed(2)}x`,
  ];
  const d = r.deno instanceof Error ? { none: NaN, observed: NaN, ratio: NaN } : r.deno;
  const kb = (r.denoBytesPerRun / 1024).toFixed(0);
  return {
    rows: [
      {
        section: `9. OpenTelemetry: own time per turn, runaway 100 (median of ${r.runs}, off: ` +
          `${2 * r.runs}); bare loop column: the same process without the observer; ratio: ` +
          `median of run-by-run pairs`,
      },
      row("telemetry off (observer, no SDK registered)", r.off),
      row("telemetry on: Node SDK in process (batch processor, metrics)", r.sdk),
      r.deno instanceof Error
        ? ["9", `telemetry on: Deno's exporter: failed: ${r.deno.message.slice(0, 50)}`, "n/a"]
        : row(`telemetry on: OTEL_DENO=true, OTLP to loopback (${kb} KiB a run)`, d),
      ["9", "  added per turn by Deno's exporter (no target)", dur(d.observed - d.none)],
    ],
    targets: [
      verdict("telemetry off / no observer, own time per turn", r.off.ratio, 1.1),
    ],
  };
}
