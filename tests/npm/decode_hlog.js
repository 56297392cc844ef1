#!/usr/bin/env node
// Decodes an HdrHistogram interval log (.hlog) with hdr-histogram-js, a port of the
// reference implementation, and prints one JSON object on stdout:
//   {"tags": {"<tag>": {"intervals": [{"startTimeStampMsec", "endTimeStampMsec",
//     "totalCount", "maxValue"}...], "totalCount", "p50", "p99", "max", "mean",
//     "hgrm"}}}
// Per-tag values are those of the sum of the tag's interval histograms, in the
// log's value unit (memstand: nanoseconds); "hgrm" is outputPercentileDistribution
// with 5 ticks per half distance and the given unit ratio. Untagged lines are
// reported under "NO TAG".
//
// Usage: node decode_hlog.js LOG_FILE [HGRM_VALUE_UNIT_RATIO (default 1e6)]
// hdr-histogram-js 3.0.1 must be resolvable (npm install in this directory, or
// NODE_PATH pointing at a node_modules holding it).
"use strict";

const fs = require("fs");
const hdr = require("hdr-histogram-js");

function mergedFor(tags, tag, histogram) {
  if (!tags.has(tag)) {
    tags.set(tag, {
      intervals: [],
      merged: hdr.build({
        lowestDiscernibleValue: histogram.lowestDiscernibleValue,
        highestTrackableValue: histogram.highestTrackableValue,
        numberOfSignificantValueDigits: histogram.numberOfSignificantValueDigits,
      }),
    });
  }
  return tags.get(tag);
}

function decode(content) {
  const reader = new hdr.HistogramLogReader(content);
  const tags = new Map();
  for (let h = reader.nextIntervalHistogram(); h !== null; h = reader.nextIntervalHistogram()) {
    const entry = mergedFor(tags, h.tag, h);
    entry.intervals.push({
      startTimeStampMsec: h.startTimeStampMsec,
      endTimeStampMsec: h.endTimeStampMsec,
      totalCount: h.totalCount,
      maxValue: h.maxValue,
    });
    entry.merged.add(h);
  }
  return tags;
}

function summarize(tags, ratio) {
  const out = {};
  for (const [tag, entry] of tags) {
    const m = entry.merged;
    out[tag] = {
      intervals: entry.intervals,
      totalCount: m.totalCount,
      p50: m.getValueAtPercentile(50),
      p99: m.getValueAtPercentile(99),
      max: m.maxValue,
      mean: m.mean,
      hgrm: m.outputPercentileDistribution(5, ratio),
    };
  }
  return { tags: out };
}

function main(argv) {
  if (argv.length < 1 || argv.length > 2) {
    process.stderr.write("usage: node decode_hlog.js LOG_FILE [HGRM_VALUE_UNIT_RATIO]\n");
    return 2;
  }
  const ratio = argv.length > 1 ? Number(argv[1]) : 1e6;
  if (!(ratio > 0)) {
    process.stderr.write(`bad unit ratio: ${argv[1]}\n`);
    return 2;
  }
  const tags = decode(fs.readFileSync(argv[0], "utf8"));
  process.stdout.write(JSON.stringify(summarize(tags, ratio)) + "\n");
  return 0;
}

process.exitCode = main(process.argv.slice(2));
