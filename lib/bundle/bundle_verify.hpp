// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/bundle/bundle_reader.hpp"
#include "lib/guest/guest_model.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

// One family of checks, with what it found.
struct VerifyCheck {
  std::string name;                   // "sections", "index", "layouts", "modules", "recipes", ...
  uint64_t checked = 0;               // items examined
  std::vector<std::string> failures;  // one line per problem, naming the item (section, entry, layout, module)
};

// True when no family found a problem.
bool all_passed(std::span<const VerifyCheck> checks);

// ---- check families ----
// Each takes a bundle that sbk_bundle_open_memory / sbk_bundle_open_file accepted (so its header and section
// table are sound; nothing else is trusted), reads it through the runtime loader and bounds-checked loads only,
// never stops at the first problem and names the item in every failure line. Any bytes are safe: damage is a
// failure line, never a crash, an out-of-bounds read or an exception. A rule that one damaged table could break
// once per row reports its first 8 rows and then how many more. Single-threaded; the bundle is only read.

// "sections": each section's checksum ("RECORDS section corrupt: its checksum does not match"), the zero
// padding between sections, and no trailing data after the last one (never read). O(sections' size).
VerifyCheck check_sections(const sbk_bundle& bundle);

// "index": every rule schemas/bundle.md states for INDEX, RECORDS and the tables rows refer to. The directory:
// D is the smallest number of bits with 8 x 2^D >= E (at most 24); directory[2^D] = E; no value is past E; no
// bucket range is reversed; directory[b] is the first entry whose bucket is >= b; the padding after it is zero.
// Each entry: its row reads (its check holds, its references are in range, its key hashes to the entry's tag), it
// lies in its bucket's range, entries are strictly sorted by (hash high, hash low, key bytes) and a probe of its own key finds it.
// The byte tables (SHADER_KEYS, HOST_STATE_PARTS): ends never decrease and end at the data's end. Stored once:
// each shader key belongs to one entry, each host state to at least one pipeline and is stored once, each part
// belongs to a host state. Reserved fields must be zero in a bundle of a minor this code knows. O(E log E + 2^D).
VerifyCheck check_index(const sbk_bundle& bundle);

// "layouts": each layout contract reads (sbk_bundle_layout: the section's checksum, binding count, ascending
// binding numbers, unused bindings zero) and is one every Vulkan device accepts and a layout contract can be:
// descriptor types 1, 6 or 7 (what layout_contract makes), counts of at least 1 and per type no more than
// Vulkan's guaranteed per-stage minimum limits (16 combined image samplers, 12 uniform buffers, 4 storage
// buffers), stages vertex and/or fragment only, a push-constant size that is a multiple of 4 and at most 128
// bytes with stages exactly when it is non-zero; layouts are stored once, in strictly ascending value order.
VerifyCheck check_layouts(const sbk_bundle& bundle);

// Which modules "modules" examines: all of them (verify), or the ones pipeline entries name (what a driver gets).
enum class ModuleScope { every_module, pipeline_modules };

// "modules" and "recipes", in that order (the recipes use what the module pass found, so they run together).
// modules: each module in scope decompresses to its size and checksum, passes spirv-val (Vulkan 1.0), its stage
// field is its first entry point's execution model and that entry point is named "main" (the name pipelines are
// created with), and SPIRV-Cross can reflect it; one module is decoded at a time (memory: the largest module).
// recipes: each pipeline entry's key decodes; its host state names only formats the trace format knows, vertex
// strides of at most 2048 and attribute offsets of at most 2047 bytes (what every Vulkan device accepts); its
// modules are a vertex and a fragment shader that passed the module checks, the fragment module is the one the
// fragment key's own record names, the vertex module reads only attributes the host state provides, the
// fragment module reads only locations the vertex module writes (with as many components), and its layout index
// names exactly the layout contract the two modules' reflection requires.
// With a DYNAMIC_FALLBACKS section, a third family follows, "dynamic_fallbacks": the vertex defaults read
// (sbk_bundle_vertex_defaults); every recipe reads through the loader (sbk_bundle_dynamic_fallback: family entry
// a ready family whose module is the recipe's fragment module, vertex module of stage vertex, layout index in
// range, counts, samples, reserved and padding), and a refused one is named rule by rule; recipes are strictly
// sorted by (family entry, signature fields), so each (family, signature) appears once; the signature's formats
// are ones the trace format names; both modules passed the module checks (the pipeline_modules scope includes
// them: a router hands them to a driver), the vertex module reads only locations of the mask, the fragment
// module only what the vertex module writes, and the layout is exactly the contract their reflection requires.
std::vector<VerifyCheck> check_modules_and_recipes(const sbk_bundle& bundle, ModuleScope scope);

// "prewarm": every position of the PREWARM order reads (sbk_bundle_prewarm_at: an exact pipeline entry of the
// index, the reserved field zero) and names a pipeline no earlier position names. Only when the bundle has the
// section (nothing otherwise).
std::vector<VerifyCheck> check_prewarm(const sbk_bundle& bundle);

// "specializations": each exact or family entry's module is a fragment or compute shader, each key is one of the guest
// model's (GuestModel::describe_exact_key, check_family_key), and each exact key's stored admission result
// is what the guest's admission says now.
VerifyCheck check_specializations(const sbk_bundle& bundle, const GuestModel& guest);

// "driver_caches": the DRIVER_CACHE section's rules, and the loader hands out each blob, exactly those bytes.
// Only when the bundle has the section (nothing otherwise).
std::vector<VerifyCheck> check_driver_caches(const sbk_bundle& bundle);

// "metadata": the META section is JSON, and the REPORT section, when there is one, decompresses and is JSON
// ("REPORT section corrupt: ..."): what inspect and the reports read.
VerifyCheck check_metadata(const sbk_bundle& bundle);

// ---- what commands run ----

// `shaderbake verify`: every family above over the whole bundle, in the order sections, index, layouts,
// modules, recipes, dynamic_fallbacks, specializations, driver_caches, prewarm, metadata.
std::vector<VerifyCheck> verify_bundle(const sbk_bundle& bundle, const GuestModel& guest);
std::vector<VerifyCheck> verify_bundle(const BundleFile& bundle, const GuestModel& guest);

// What must hold before any pipeline of `bundle` is handed to a Vulkan driver (`shaderbake warm` runs it after
// opening the file and before it opens a device): "sections", then "index", "layouts", "modules" + "recipes"
// (+ "dynamic_fallbacks") over the modules pipeline entries and dynamic-state fallback recipes name, and
// "prewarm" (what a router creates ahead of demand). Vulkan requires valid SPIR-V, matching interfaces and a
// layout that matches the shaders, and a driver need not check any of it (lavapipe crashes on such a bundle),
// so every module goes through spirv-val: milliseconds a module, far below the driver's own compilation. The
// index is checked because warm rewrites the bundle with fresh checksums and must not certify a broken one.
// Admission results (specializations) are left out: they change no byte a driver sees. When the sections fail,
// only that family is returned: the bytes are not the writer's, the bundle is refused whatever they say, and the
// deeper checks would only describe the damage again. The bundle may reach a driver only when all_passed().
std::vector<VerifyCheck> check_before_driver(const sbk_bundle& bundle);

// What `shaderbake report` needs before it counts anything: "sections" and "index" (a damaged section, record
// or directory would shift the numbers silently: a probe that meets one misses).
std::vector<VerifyCheck> check_before_lookups(const sbk_bundle& bundle);

}  // namespace shaderbake::bundle
