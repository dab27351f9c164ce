// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lib/report/coverage.hpp"

namespace shaderbake::report {

// The coverage report as one self-contained HTML page (no script, no external resource; inline SVG charts):
// first uses over frames stacked by route, uncovered first uses by reason, and, given a replay's JSON
// (shaderbake-replay --json; null for none), each mode's per-frame first-use stall distribution (p50, p99,
// p99.9, max on a log scale) with its frames stalled over 4 ms. Every chart is an <svg> with an id
// (first-uses, uncovered, stalls) whose series are <g data-series="..."> groups — exact, fallback,
// dynamic_fallback, uncovered; uncovered:REASON; mode:NAME — so a browser test can find them. `bundle` names
// the bundle in the title. Text from traces and the replay is escaped; a replay whose fields do not read is
// left out of the chart, not trusted.
std::string coverage_page(const std::string& bundle, const CoverageResult& result, const nlohmann::json& replay);

}  // namespace shaderbake::report
