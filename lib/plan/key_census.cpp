// SPDX-License-Identifier: MIT
#include "lib/plan/key_census.hpp"

#include <algorithm>

#include "lib/core/pipeline_key.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::plan {

namespace {

// A job's identity as bytes (stage, language, values, source), for counting distinct jobs.
std::vector<uint8_t> job_bytes(const compile::CompileJob& job) {
  std::vector<uint8_t> out = {static_cast<uint8_t>(job.stage), static_cast<uint8_t>(job.language)};
  auto u32 = [&](uint32_t v) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
  };
  // The values in canonical order (compile::canonical_specialization's, which lives with the compile chain).
  std::vector<compile::SpecializationValue> values = job.specialization;
  std::sort(values.begin(), values.end());
  u32(static_cast<uint32_t>(values.size()));
  for (const compile::SpecializationValue& v : values) {
    u32(v.constant_id);
    u32(static_cast<uint32_t>(v.words.size()));
    for (uint32_t w : v.words) u32(w);
  }
  out.insert(out.end(), job.source.begin(), job.source.end());
  return out;
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
  if (pairs_.insert(pair).second) add_pair(draw.program, draw.host, draw.frame);
}

void KeyCensus::add_pair(uint32_t program, uint32_t host, int64_t frame) {
  if (program_drawn_.size() <= program) program_drawn_.resize(reader_.exact_keys().size(), false);
  if (!program_drawn_[program]) {
    program_drawn_[program] = true;
    ++programs_drawn_;
    // A draw was read, so a capture record named the model.
    if (count_sources_) {
      auto job = reader_.model()->exact_shader(reader_.exact_keys().bytes(program));
      if (job)
        sources_.intern(job_bytes(*job));
      else
        ++source_failures_;
    }
  }
  if (host == trace::kNoHost) {
    // A compute pipeline: its key is the shader's identity alone.
    if (encode_compute_pipeline_key(SBK_ROUTE_EXACT, reader_.exact_keys().bytes(program), key_buffer_) &&
        pipeline_keys_.intern(key_buffer_).inserted)
      pipeline_first_frames_.push_back(frame);
    if (!reader_.program_rejection()[program].empty()) return;
    const uint32_t family = reader_.program_family()[program];
    if (!encode_compute_pipeline_key(SBK_ROUTE_FALLBACK, reader_.family_keys().bytes(family), key_buffer_)) return;
    mark_family_drawn(family);
    fallback_pipeline_keys_.intern(key_buffer_);
    return;
  }
  const sbk_host_state& host_state = reader_.host_state(host);
  // The reader only hands on host states the header accepted, so encoding cannot fail.
  // A pair is new on its first draw, so a key's first intern is its first use.
  if (encode_pipeline_key(SBK_ROUTE_EXACT, reader_.exact_keys().bytes(program), host_state, key_buffer_) &&
      pipeline_keys_.intern(key_buffer_).inserted)
    pipeline_first_frames_.push_back(frame);
  // Only admitted programs have a fallback route: a rejected one contributes no family and no fallback pipeline.
  if (!reader_.program_rejection()[program].empty()) return;
  const uint32_t family = reader_.program_family()[program];
  const auto family_key = reader_.family_keys().bytes(family);
  if (!encode_pipeline_key(SBK_ROUTE_FALLBACK, family_key, host_state, key_buffer_)) return;
  // Nor does a family on attachments its model refuses (counted once per fallback pipeline key).
  sbk_attachment_signature attachments;
  sbk_attachment_signature_of(&host_state, &attachments);
  if (std::string refusal = reader_.model()->fallback_attachment_rejection(family_key, attachments); !refusal.empty()) {
    if (refused_fallback_keys_.intern(key_buffer_).inserted) ++fallback_attachment_rejections_[refusal];
    return;
  }
  mark_family_drawn(family);
  fallback_pipeline_keys_.intern(key_buffer_);
}

void KeyCensus::mark_family_drawn(uint32_t family) {
  if (family_drawn_.size() <= family) family_drawn_.resize(reader_.family_keys().size(), false);
  if (!family_drawn_[family]) {
    family_drawn_[family] = true;
    ++families_drawn_;
  }
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
  c.fallback_attachment_rejections = fallback_attachment_rejections_;
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
