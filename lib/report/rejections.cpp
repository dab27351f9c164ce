// SPDX-License-Identifier: MIT
#include "lib/report/rejections.hpp"

#include <algorithm>

#include "lib/core/key_hash.hpp"

namespace shaderbake::report {

RejectionCensus::RejectionCensus(const sbk_bundle& bundle, const GuestModel& guest) {
  const uint32_t count = sbk_bundle_entry_count(&bundle);
  for (uint32_t i = 0; i < count; ++i) {
    sbk_entry e;
    if (sbk_bundle_entry_at(&bundle, i, &e) != SBK_OK || e.kind != SBK_KEY_KIND_EXACT) continue;
    ++specializations_;
    if (e.rejection == 0) continue;
    const std::string name = guest.rejection_name(e.rejection);
    Reason& r = reasons_[name];
    r.name = name;
    ++r.keys;
    r.examples.insert(KeyHash::of({e.key, e.key_size}).to_hex());
    if (r.examples.size() > 3) r.examples.erase(std::prev(r.examples.end()));
    reason_of_key_.emplace(std::string(e.key, e.key + e.key_size), &r);
  }
}

void RejectionCensus::on_draw(const trace::DrawEvent& draw) {
  if (reader_ == nullptr) return;
  // A program's reason is looked up once, on its first draw.
  if (draw.program >= reason_of_program_.size()) reason_of_program_.resize(draw.program + 1);
  std::optional<Reason*>& reason = reason_of_program_[draw.program];
  if (!reason) {
    const auto key = reader_->exact_keys().bytes(draw.program);
    const auto it = reason_of_key_.find(std::string(key.begin(), key.end()));
    reason = it == reason_of_key_.end() ? nullptr : it->second;
  }
  if (*reason) ++(*reason)->draws;
}

uint64_t RejectionCensus::rejected_keys() const {
  uint64_t total = 0;
  for (const auto& [name, r] : reasons_) total += r.keys;
  return total;
}

std::vector<const RejectionCensus::Reason*> RejectionCensus::by_keys() const {
  std::vector<const Reason*> out;
  for (const auto& [name, r] : reasons_) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const Reason* a, const Reason* b) { return a->keys > b->keys; });
  return out;
}

}  // namespace shaderbake::report
