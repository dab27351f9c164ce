// SPDX-License-Identifier: MIT
#include "lib/report/coverage_page.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

namespace shaderbake::report {

namespace {

// Text for element content and single- or double-quoted attributes.
std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\'': out += "&#39;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// `pattern` with up to four numbers, however long the result (a replay file's figures are untrusted: 1e308
// prints 309 digits with %.3f).
std::string format(const char* pattern, double a, double b = 0, double c = 0, double d = 0) {
  const int size = std::snprintf(nullptr, 0, pattern, a, b, c, d);
  if (size <= 0) return {};
  std::string out(static_cast<size_t>(size) + 1, '\0');
  std::snprintf(out.data(), out.size(), pattern, a, b, c, d);
  out.pop_back();
  return out;
}

struct Series {
  const char* name;
  const char* label;
  const char* colour;
};
constexpr std::array<Series, 4> kRoutes = {{{"exact", "exact", "#2e7d32"},
                                           {"fallback", "fallback", "#f9a825"},
                                           {"dynamic_fallback", "dynamic fallback", "#1565c0"},
                                           {"uncovered", "uncovered", "#c62828"}}};

std::string legend() {
  std::string out = "<p>";
  for (const Series& s : kRoutes)
    out += std::string("<span style='color:") + s.colour + "'>&#9632;</span> " + s.label + " &nbsp; ";
  return out + "</p>";
}

// First uses per frame bucket, stacked by route: one <g> per route.
std::string first_uses_chart(const CoverageResult& result) {
  const size_t frames = result.frames.size();
  const size_t buckets = std::min<size_t>(frames, 200);
  std::vector<std::array<double, 4>> bars(buckets, {0, 0, 0, 0});
  for (size_t i = 0; i < frames; ++i) {
    const Counts& f = result.frames[i].first_uses;
    auto& b = bars[i * buckets / std::max<size_t>(frames, 1)];
    b[0] += static_cast<double>(f.exact);
    b[1] += static_cast<double>(f.fallback);
    b[2] += static_cast<double>(f.dynamic_fallback);
    b[3] += static_cast<double>(f.uncovered);
  }
  double peak = 1;
  for (const auto& b : bars) peak = std::max(peak, b[0] + b[1] + b[2] + b[3]);
  const double left = 40, width = 760, height = 220, bar = buckets ? width / static_cast<double>(buckets) : width;
  std::string groups[4];
  std::vector<double> base(buckets, height + 10);
  for (int k = 0; k < 4; ++k)
    for (size_t i = 0; i < buckets; ++i) {
      const double h = bars[i][k] / peak * height;
      if (h <= 0) continue;
      base[i] -= h;
      groups[k] += format("<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f'/>", left + static_cast<double>(i) * bar,
                          base[i], std::max(bar - 0.5, 0.5), h);
    }
  std::string svg = "<svg id='first-uses' xmlns='http://www.w3.org/2000/svg' width='820' height='260' "
                    "font-family='sans-serif' font-size='11' role='img' aria-label='first uses over frames by route'>";
  for (int k = 0; k < 4; ++k)
    svg += std::string("<g data-series='") + kRoutes[k].name + "' fill='" + kRoutes[k].colour + "'>" + groups[k] + "</g>";
  svg += format("<line x1='40' y1='230' x2='800' y2='230' stroke='#555'/><text x='40' y='246'>frame 0</text>"
                "<text x='800' y='246' text-anchor='end'>frame %.0f</text><text x='36' y='16' text-anchor='end'>%.0f</text>"
                "<text x='36' y='230' text-anchor='end'>0</text>",
                static_cast<double>(frames), peak);
  svg += format("<text x='420' y='258' text-anchor='middle'>first uses per bucket of %.0f frames</text></svg>",
                buckets ? static_cast<double>((frames + buckets - 1) / buckets) : 0.0);
  return svg;
}

// Uncovered first uses by reason: a horizontal bar per reason.
std::string uncovered_chart(const CoverageResult& result) {
  const auto& reasons = result.first_uses.uncovered_by_reason;
  double peak = 1;
  for (const auto& [reason, n] : reasons) peak = std::max(peak, static_cast<double>(n));
  const double row = 22, height = 20 + row * static_cast<double>(std::max<size_t>(reasons.size(), 1));
  std::string svg = format("<svg id='uncovered' xmlns='http://www.w3.org/2000/svg' width='820' height='%.0f' "
                           "font-family='sans-serif' font-size='11' role='img' aria-label='uncovered first uses by reason'>",
                           height);
  if (reasons.empty()) svg += "<text x='10' y='24'>no uncovered first use</text>";
  double y = 10;
  for (const auto& [reason, n] : reasons) {
    const double w = static_cast<double>(n) / peak * 480;
    svg += "<g data-series='uncovered:" + escaped(reason) + "' fill='#c62828'>";
    svg += format("<rect x='260' y='%.0f' width='%.2f' height='16'/>", y, std::max(w, 1.0));
    svg += format("<text x='250' y='%.0f' text-anchor='end' fill='#000'>", y + 12) + escaped(reason) + "</text>";
    svg += format("<text x='%.2f' y='%.0f' fill='#000'>%.0f</text></g>", 266 + w, y + 12, static_cast<double>(n));
    y += row;
  }
  return svg + "</svg>";
}

// The replay's per-frame first-use stall distribution per mode: p50, p99, p99.9 and max on a log axis from
// 0.001 ms to 1 s, with the frames stalled over 4 ms.
struct ModeStalls {
  std::string name;
  std::array<double, 4> ms;  // p50, p99, p99.9, max
  double over_4ms = -1;
};

std::vector<ModeStalls> replay_modes(const nlohmann::json& replay) {
  std::vector<ModeStalls> out;
  if (!replay.is_object() || !replay.contains("modes") || !replay["modes"].is_array()) return out;
  for (const auto& m : replay["modes"]) {
    if (!m.is_object() || !m.contains("mode") || !m["mode"].is_string() || !m.contains("frame_first_use_ms") ||
        !m["frame_first_use_ms"].is_object())
      continue;
    const auto& s = m["frame_first_use_ms"];
    ModeStalls mode{m["mode"].get<std::string>(), {}, -1};
    bool readable = true;
    const char* fields[4] = {"p50", "p99", "p99_9", "max"};
    for (int i = 0; i < 4; ++i) {
      readable = readable && s.contains(fields[i]) && s[fields[i]].is_number() && std::isfinite(s[fields[i]].get<double>());
      if (readable) mode.ms[i] = std::max(0.0, s[fields[i]].get<double>());
    }
    if (!readable) continue;
    if (m.contains("stalls") && m["stalls"].is_object() && m["stalls"].contains("over_4ms") &&
        m["stalls"]["over_4ms"].is_number())
      mode.over_4ms = m["stalls"]["over_4ms"].get<double>();
    out.push_back(std::move(mode));
  }
  return out;
}

std::string stalls_chart(const std::vector<ModeStalls>& modes) {
  const double left = 150, width = 520, row = 34;
  auto x_of = [&](double ms) {
    const double v = std::log10(std::clamp(ms, 0.001, 1000.0));  // -3 .. 3
    return left + (v + 3) / 6 * width;
  };
  std::string svg = format("<svg id='stalls' xmlns='http://www.w3.org/2000/svg' width='820' height='%.0f' "
                           "font-family='sans-serif' font-size='11' role='img' aria-label='per-frame first-use stall by mode'>",
                           50 + row * static_cast<double>(modes.size()));
  for (int decade = -3; decade <= 3; ++decade) {
    const double x = x_of(std::pow(10.0, decade));
    svg += format("<line x1='%.1f' y1='10' x2='%.1f' y2='%.0f' stroke='#ddd'/>", x, x, 14 + row * static_cast<double>(modes.size()));
    static const char* const kLabels[] = {"0.001", "0.01", "0.1", "1", "10", "100", "1000 ms"};
    svg += format("<text x='%.1f' y='%.0f' text-anchor='middle'>", x, 28 + row * static_cast<double>(modes.size())) +
           kLabels[decade + 3] + "</text>";
  }
  double y = 14;
  for (const ModeStalls& m : modes) {
    svg += "<g data-series='mode:" + escaped(m.name) + "'>";
    svg += format("<text x='%.0f' y='%.0f' text-anchor='end'>", left - 8, y + 14) + escaped(m.name) + "</text>";
    svg += format("<line x1='%.1f' y1='%.0f' x2='%.1f' y2='%.0f' stroke='#888' stroke-width='2'/>", x_of(m.ms[0]), y + 10,
                  x_of(m.ms[3]), y + 10);
    static const char* const kMarks[4] = {"#2e7d32", "#f9a825", "#e65100", "#c62828"};
    for (int i = 0; i < 4; ++i)
      svg += format("<circle cx='%.1f' cy='%.0f' r='5' fill='", x_of(m.ms[i]), y + 10) + kMarks[i] + "'/>";
    if (m.over_4ms >= 0) svg += format("<text x='%.0f' y='%.0f'>%.0f frames &gt; 4 ms</text>", left + width + 12, y + 14, m.over_4ms);
    svg += "</g>";
    y += row;
  }
  svg += format("<text x='%.0f' y='%.0f'>", left, 44 + row * static_cast<double>(modes.size())) +
         "<tspan fill='#2e7d32'>&#9679; p50</tspan> <tspan fill='#f9a825'>&#9679; p99</tspan> "
         "<tspan fill='#e65100'>&#9679; p99.9</tspan> <tspan fill='#c62828'>&#9679; max</tspan> (below 0.001 ms drawn "
         "at 0.001)</text>";
  return svg + "</svg>";
}

}  // namespace

std::string coverage_page(const std::string& bundle, const CoverageResult& result, const nlohmann::json& replay) {
  const Counts& f = result.first_uses;
  std::string page = "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>shaderbake coverage of " +
                     escaped(bundle) + "</title></head><body style='font-family:sans-serif;max-width:860px;margin:1em'>";
  page += "<h1>Coverage of " + escaped(bundle) + "</h1>";
  page += format("<p>First uses (what stalls): <b>%.2f%%</b> served (%.0f exact, %.0f fallback, %.0f dynamic fallback, ",
                 f.covered_percent(), static_cast<double>(f.exact), static_cast<double>(f.fallback),
                 static_cast<double>(f.dynamic_fallback));
  page += format("%.0f uncovered). Draws: %.2f%% served.</p>", static_cast<double>(f.uncovered), result.draws.covered_percent());
  page += result.router_data
              ? "<p>Dynamic fallback: the family's dynamic-state fallback pipeline for the draw's attachment signature, "
                "which needs VK_EXT_extended_dynamic_state 1/2/3 and VK_EXT_vertex_input_dynamic_state.</p>"
              : "<p>The bundle has no router data (no DYNAMIC_FALLBACKS section): per-host-state fallback pipelines "
                "only.</p>";
  page += "<h2>First uses over frames</h2>" + legend() + first_uses_chart(result);
  page += "<h2>Uncovered first uses by reason</h2>" + uncovered_chart(result);
  page += "<table border='1' cellpadding='4' style='border-collapse:collapse'><tr><th>reason</th><th>first uses</th>"
          "<th>draws</th></tr>";
  for (const auto& [reason, n] : f.uncovered_by_reason) {
    const auto it = result.draws.uncovered_by_reason.find(reason);
    page += "<tr><td>" + escaped(reason) + "</td><td>" + std::to_string(n) + "</td><td>" +
            std::to_string(it == result.draws.uncovered_by_reason.end() ? 0 : it->second) + "</td></tr>";
  }
  page += "</table>";
  const std::vector<ModeStalls> modes = replay_modes(replay);
  if (!modes.empty()) {
    page += "<h2>Replay: per-frame first-use stall by mode</h2>" + stalls_chart(modes);
    page += "<table border='1' cellpadding='4' style='border-collapse:collapse'><tr><th>mode</th><th>p50 ms</th>"
            "<th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>frames &gt; 4 ms</th></tr>";
    for (const ModeStalls& m : modes)
      page += "<tr><td>" + escaped(m.name) + "</td>" +
              format("<td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>", m.ms[0], m.ms[1], m.ms[2], m.ms[3]) +
              (m.over_4ms >= 0 ? format("<td>%.0f</td></tr>", m.over_4ms) : std::string("<td>-</td></tr>"));
    page += "</table>";
  }
  return page + "</body></html>\n";
}

}  // namespace shaderbake::report
