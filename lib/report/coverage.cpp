// SPDX-License-Identifier: MIT
#include "lib/report/coverage.hpp"

#include "lib/core/little_endian.hpp"
#include "lib/core/pipeline_key.hpp"


namespace shaderbake::report {

CoverageCensus::CoverageCensus(const trace::TraceReader& reader, const sbk_bundle& bundle)
    : reader_(reader), bundle_(bundle) {
  uint64_t size = 0;
  result_.router_data = sbk_bundle_section(&bundle, SBK_SECTION_DYNAMIC_FALLBACKS, &size) != nullptr;
}

void count(Counts& counts, Route route, const std::string& reason) {
  switch (route) {
    case Route::exact: ++counts.exact; break;
    case Route::fallback: ++counts.fallback; break;
    case Route::dynamic_fallback: ++counts.dynamic_fallback; break;
    case Route::uncovered:
      ++counts.uncovered;
      ++counts.uncovered_by_reason[reason];
      break;
  }
}

CoverageCensus::PairClass CoverageCensus::classify_compute(uint32_t program) {
  const auto exact_key = reader_.exact_keys().bytes(program);
  encode_compute_pipeline_key(SBK_ROUTE_EXACT, exact_key, key_buffer_);
  const uint32_t exact_index = pipelines_.intern(key_buffer_).index;
  sbk_entry entry;
  const sbk_result exact_probe = sbk_bundle_find(&bundle_, key_buffer_.data(), key_buffer_.size(), &entry);
  if (exact_probe == SBK_OK) return {Route::exact, "", exact_index};
  bool damaged = exact_probe < 0;
  const std::string& rejection = reader_.program_rejection()[program];
  if (rejection.empty()) {
    const auto family_key = reader_.family_keys().bytes(reader_.program_family()[program]);
    encode_compute_pipeline_key(SBK_ROUTE_FALLBACK, family_key, key_buffer_);
    const sbk_result probe = sbk_bundle_find(&bundle_, key_buffer_.data(), key_buffer_.size(), &entry);
    if (probe == SBK_OK) return {Route::fallback, "", pipelines_.intern(key_buffer_).index};
    damaged |= probe < 0;
  }
  const sbk_result specialization = sbk_bundle_find(&bundle_, exact_key.data(), exact_key.size(), &entry);
  if (damaged || specialization < 0) return {Route::uncovered, "bundle_corrupt", exact_index};
  if (specialization == SBK_OK)
    return {Route::uncovered, entry.status != SBK_STATUS_READY ? "compile_failure" : "no_compute_pipeline", exact_index};
  if (!rejection.empty()) return {Route::uncovered, "rejected:" + rejection, exact_index};
  return {Route::uncovered, "family_not_in_bundle", exact_index};
}

CoverageCensus::PairClass CoverageCensus::classify(uint32_t program, uint32_t host) {
  if (host == trace::kNoHost) return classify_compute(program);
  const auto exact_key = reader_.exact_keys().bytes(program);
  const sbk_host_state& state = reader_.host_state(host);
  encode_pipeline_key(SBK_ROUTE_EXACT, exact_key, state, key_buffer_);
  const uint32_t exact_index = pipelines_.intern(key_buffer_).index;
  sbk_entry entry;
  bool damaged = false;
  const sbk_result exact_probe = sbk_bundle_find(&bundle_, key_buffer_.data(), key_buffer_.size(), &entry);
  if (exact_probe == SBK_OK) return {Route::exact, "", exact_index};
  damaged |= exact_probe < 0;

  const std::string& rejection = reader_.program_rejection()[program];
  std::string refusal;  // the model refuses the program's family on these attachments: no fallback to probe
  if (rejection.empty()) {
    sbk_attachment_signature attachments;
    sbk_attachment_signature_of(&state, &attachments);
    refusal = reader_.model()->fallback_attachment_rejection(
        reader_.family_keys().bytes(reader_.program_family()[program]), attachments);
  }
  bool family_known = false;
  if (rejection.empty() && refusal.empty()) {
    const auto family_key = reader_.family_keys().bytes(reader_.program_family()[program]);
    encode_pipeline_key(SBK_ROUTE_FALLBACK, family_key, state, key_buffer_);
    const sbk_result probe = sbk_bundle_find(&bundle_, key_buffer_.data(), key_buffer_.size(), &entry);
    if (probe == SBK_OK) return {Route::fallback, "", pipelines_.intern(key_buffer_).index};
    damaged |= probe < 0;
    const sbk_result family = sbk_bundle_find(&bundle_, family_key.data(), family_key.size(), &entry);
    family_known = family == SBK_OK && entry.status == SBK_STATUS_READY;
    damaged |= family < 0;
    if (family_known && !damaged) {
      sbk_attachment_signature signature;
      sbk_attachment_signature_of(&state, &signature);
      sbk_dynamic_fallback recipe;
      uint32_t recipe_index = 0;
      const sbk_result dynamic = sbk_bundle_find_dynamic_fallback(&bundle_, entry.index, &signature, &recipe, &recipe_index);
      if (dynamic == SBK_OK) {
        // One dynamic-state pipeline serves every host state of the family with this signature: its identity,
        // for first uses, is the recipe (never equal to a pipeline key, whose first byte is 0).
        key_buffer_.assign({0xFF, 'D', 0, 0, 0, 0});
        store_u32_le(key_buffer_.data() + 2, recipe_index);
        return {Route::dynamic_fallback, "", pipelines_.intern(key_buffer_).index};
      }
      damaged |= dynamic < 0;
    }
  }
  if (damaged) return {Route::uncovered, "bundle_corrupt", exact_index};
  if (!refusal.empty()) return {Route::uncovered, "rejected:" + refusal, exact_index};
  const sbk_result specialization = sbk_bundle_find(&bundle_, exact_key.data(), exact_key.size(), &entry);
  if (specialization < 0) return {Route::uncovered, "bundle_corrupt", exact_index};
  if (specialization == SBK_OK) {
    if (entry.status != SBK_STATUS_READY && !family_known) return {Route::uncovered, "compile_failure", exact_index};
    return {Route::uncovered, "no_pipeline_for_host_state", exact_index};
  }
  if (family_known) return {Route::uncovered, "no_pipeline_for_host_state", exact_index};
  if (!rejection.empty()) return {Route::uncovered, "rejected:" + rejection, exact_index};
  return {Route::uncovered, "family_not_in_bundle", exact_index};
}

void CoverageCensus::on_draw(const trace::DrawEvent& draw) {
  const uint64_t pair = (uint64_t{draw.program} << 32) | draw.host;
  auto it = pairs_.find(pair);
  if (it == pairs_.end()) it = pairs_.emplace(pair, classify(draw.program, draw.host)).first;
  const PairClass& c = it->second;
  if (result_.frames.empty() || result_.frames.back().file != draw.file || result_.frames.back().frame != draw.frame)
    result_.frames.push_back({draw.file, draw.frame, 0, {}});
  FrameCounts& frame = result_.frames.back();
  ++frame.draws;
  count(result_.draws, c.route, c.reason);
  if (used_.insert((uint64_t{draw.file} << 32) | c.pipeline).second) {
    count(result_.first_uses, c.route, c.reason);
    count(frame.first_uses, c.route, c.reason);
  }
}

}  // namespace shaderbake::report
