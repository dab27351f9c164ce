// SPDX-License-Identifier: MIT
#include "lib/plan/key_census.hpp"

#include <array>

#include "runtime_loader/shaderbake.h"

namespace shaderbake::plan {

namespace {

uint32_t intern_pipeline_key(KeyInterner& keys, uint8_t route, std::span<const uint8_t> fragment_key,
                             const sbk_host_state& host) {
  std::array<uint8_t, SBK_PIPELINE_KEY_MAX_SIZE(SBK_NV2A_EXACT_KEY_SIZE)> small{};
  std::vector<uint8_t> large;
  uint8_t* out = small.data();
  size_t capacity = small.size();
  size_t size = 0;
  sbk_result r = sbk_encode_pipeline_key(route, fragment_key.data(), fragment_key.size(), &host, out, capacity, &size);
  if (r == SBK_ERROR_BUFFER_TOO_SMALL) {  // a guest model with keys larger than nv2a's
    large.resize(size);
    r = sbk_encode_pipeline_key(route, fragment_key.data(), fragment_key.size(), &host, large.data(), large.size(), &size);
    out = large.data();
  }
  // The reader only hands on host states that sbk_encode_host_state accepted.
  if (r != SBK_OK) return KeyInterner::kAbsent;
  return keys.intern({out, size}).index;
}

}  // namespace

void KeyCensus::on_draw(const trace::DrawEvent& draw) {
  ++draws_;
  if (draw.file != last_frame_file_ || draw.frame != last_frame_) {
    if (frames_.size() <= draw.file) frames_.resize(draw.file + 1);
    frames_[draw.file].insert(draw.frame);
    last_frame_file_ = draw.file;
    last_frame_ = draw.frame;
  }
  const uint64_t pair = (uint64_t{draw.program} << 32) | draw.host;
  if (pair == last_pair_ && draw.file == last_pair_file_) return;
  last_pair_ = pair;
  last_pair_file_ = draw.file;
  if (programs_per_file_.size() <= draw.file) programs_per_file_.resize(draw.file + 1);
  programs_per_file_[draw.file].insert(draw.program);
  if (pairs_.insert(pair).second) add_pair(draw.program, draw.host);
}

void KeyCensus::add_pair(uint32_t program, uint32_t host) {
  if (program_drawn_.size() <= program) program_drawn_.resize(reader_.exact_keys().size(), false);
  if (!program_drawn_[program]) {
    program_drawn_[program] = true;
    ++programs_drawn_;
    if (model_ != nullptr) {
      auto source = model_->exact_source(reader_.exact_keys().bytes(program));
      if (source)
        sources_.intern({reinterpret_cast<const uint8_t*>(source->data()), source->size()});
      else
        ++source_failures_;
    }
  }
  const sbk_host_state& host_state = reader_.host_state(host);
  intern_pipeline_key(pipeline_keys_, SBK_ROUTE_EXACT, reader_.exact_keys().bytes(program), host_state);
  // Only admitted programs have a fallback route: a rejected one contributes no family and no fallback pipeline.
  if (!reader_.program_rejection()[program].empty()) return;
  const uint32_t family = reader_.program_family()[program];
  if (family_drawn_.size() <= family) family_drawn_.resize(reader_.family_keys().size(), false);
  if (!family_drawn_[family]) {
    family_drawn_[family] = true;
    ++families_drawn_;
  }
  intern_pipeline_key(fallback_pipeline_keys_, SBK_ROUTE_FALLBACK, reader_.family_keys().bytes(family), host_state);
}

std::vector<uint32_t> KeyCensus::drawn_programs() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < program_drawn_.size(); ++i)
    if (program_drawn_[i]) out.push_back(i);
  return out;
}

std::vector<uint32_t> KeyCensus::drawn_families() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < family_drawn_.size(); ++i)
    if (family_drawn_[i]) out.push_back(i);
  return out;
}

DedupeCounts KeyCensus::counts() const {
  DedupeCounts c;
  c.draws = draws_;
  for (const auto& f : frames_) c.frames += f.size();
  c.unique_exact_keys = programs_drawn_;
  c.unique_fallback_families = families_drawn_;
  c.unique_pipeline_keys = pipeline_keys_.size();
  c.unique_fallback_pipeline_keys = fallback_pipeline_keys_.size();
  c.unique_sources = sources_.size();
  c.source_failures = source_failures_;
  c.bad_records = reader_.bad_records();
  auto count = [&](AdmissionCounts& a, uint32_t program) {
    ++a.unique_exact_keys;
    const std::string& reason = reader_.program_rejection()[program];
    if (reason.empty()) ++a.admitted_exact_keys;
    else ++a.rejections[reason];
  };
  for (uint32_t program = 0; program < program_drawn_.size(); ++program)
    if (program_drawn_[program]) count(c.admission, program);
  c.admission_per_file.resize(reader_.files().size());
  for (size_t file = 0; file < programs_per_file_.size() && file < c.admission_per_file.size(); ++file)
    for (uint32_t program : programs_per_file_[file]) count(c.admission_per_file[file], program);
  return c;
}

}  // namespace shaderbake::plan
