// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/guest/guest_model.hpp"
#include "lib/trace/trace_reader.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::report {

// Why programs are kept off the fallback route (`shaderbake report rejections`): a bundle's exact keys by
// stored admission reason, named by the bundle's guest model, and, when traces are read through it (a
// DrawConsumer), the draws of those keys.
class RejectionCensus final : public trace::DrawConsumer {
 public:
  struct Reason {
    std::string name;
    uint64_t keys = 0;
    uint64_t draws = 0;
    std::set<std::string> examples;  // the 3 smallest key hashes: stable across runs
  };

  // Reads every exact entry of `bundle` (entries that do not read are left out: the caller checked the
  // bundle before counting).
  RejectionCensus(const sbk_bundle& bundle, const GuestModel& guest);

  // Counting draws: `reader` is the reader the traces are read with (keys are matched on its exact keys).
  void count_draws_of(const trace::TraceReader& reader) { reader_ = &reader; }
  void on_draw(const trace::DrawEvent& draw) override;

  uint64_t specializations() const { return specializations_; }  // exact keys in the bundle
  uint64_t rejected_keys() const;
  // Reasons with most keys first (ties by name).
  std::vector<const Reason*> by_keys() const;

 private:
  std::map<std::string, Reason> reasons_;
  std::map<std::string, Reason*> reason_of_key_;  // exact key bytes -> its reason
  uint64_t specializations_ = 0;
  const trace::TraceReader* reader_ = nullptr;
  std::vector<std::optional<Reason*>> reason_of_program_;  // empty: not looked up yet; nullptr: not rejected
};

}  // namespace shaderbake::report
