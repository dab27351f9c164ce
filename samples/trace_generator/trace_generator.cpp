// SPDX-License-Identifier: MIT
// shaderbake-tracegen: writes large, realistic nv2a traces (shaderbake-trace/1, JSON Lines) from a seed.
//
// The model of a play session:
//   * a universe of --states guest states, built once from the seed: a small global pool (HUD, player,
//     effects) used in every frame, and per-level pools entered one after another (the working set drifts;
//     the player sometimes backtracks to an earlier level once every level was visited);
//   * states come in groups sharing one combiner program: host variants (cull, blend, vertex layout,
//     topology, multi-pass depth-equal), dynamic-only siblings (same key), and copies whose ignored fields
//     differ (garbage words past the stage count, a disabled stage with a stale mode, a stale alpha func);
//   * per frame, draws pick states by Zipf popularity inside a window sliding over the current level, plus
//     rare states (cutscene effects, one-off pickups) scheduled to appear once or twice;
//   * a frame's draws are ordered the way an engine submits them: offscreen passes, opaque batches sorted by
//     material, alpha-tested, decals, shadow volumes, blended back to front, HUD last.
// Everything is integer arithmetic over a xoshiro256** stream, so one seed gives the same bytes everywhere.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "host_state.hpp"
#include "json_out.hpp"
#include "nv2a_program.hpp"
#include "rng.hpp"

namespace shaderbake::tracegen {
namespace {

enum class Shape { kRef, kInline };

struct Options {
    std::uint64_t seed = 1;
    std::uint64_t frames = 0;  // 0: not given
    std::uint64_t draws_per_frame = 200;
    std::uint64_t states = 2000;
    Shape shape = Shape::kRef;
    std::uint64_t target_bytes = 0;  // 0: not given
    std::string output = "-";
    std::string title = "shaderbake-tracegen synthetic play session";
};

constexpr std::uint64_t kDefaultFrames = 1000;
// Programs with later texture modes or odd encodings: about 1% of program groups, concentrated in the rare
// states (one-off effects are where exotic programs live; 15% of level states are rare). Placed by an
// accumulator rather than by chance, so even a small universe gets its share.
constexpr unsigned kExoticPerMilleRare = 60;
constexpr unsigned kExoticPerMilleCommon = 4;

enum class Role : std::uint8_t { kGlobal, kLevel, kRare };

struct UniverseState {
    Program program;
    HostState host;
    DynamicValues dynamic;
    bool has_dynamic = true;
    bool animated = false;  // inline shape: its dynamic values change from draw to draw
    Role role = Role::kLevel;
    std::uint32_t level = 0;
    std::uint64_t popularity = 1;  // Zipf weight inside its pool
};

struct Level {
    std::uint32_t first = 0, end = 0;  // universe index range (common and rare states interleaved)
    std::vector<std::uint32_t> common;  // level states drawn by popularity, in universe order
    std::vector<std::uint32_t> rare;
    bool visited = false;
};

struct Universe {
    std::vector<UniverseState> states;
    std::vector<std::uint32_t> global;
    std::vector<Level> levels;
    std::uint32_t exotic_accumulator = 0;  // per-mille credit towards the next exotic program
    std::uint32_t exotic_count = 0;        // alternates later-mode and odd programs, later first
};

MaterialClass pick_class(Rng& rng, bool global) {
    using C = MaterialClass;
    if (global) {
        static constexpr C kClasses[] = {C::kHud,    C::kOpaque,       C::kAdditive,  C::kBlended, C::kShadowVolume,
                                         C::kDepthOnly, C::kOffscreen, C::kSky,       C::kAlphaTested};
        const unsigned w[] = {35, 25, 12, 8, 5, 3, 5, 4, 3};
        return kClasses[rng.weighted(w)];
    }
    static constexpr C kClasses[] = {C::kOpaque, C::kAlphaTested, C::kBlended,      C::kAdditive,  C::kDecal,    C::kSky,
                                     C::kWater,  C::kHud,         C::kShadowVolume, C::kDepthOnly, C::kOffscreen};
    const unsigned w[] = {52, 12, 9, 7, 6, 2, 3, 2, 1, 1, 2};
    return kClasses[rng.weighted(w)];
}

std::uint32_t fog_colour(Rng& rng) {
    static constexpr std::uint32_t kFogs[] = {0xFF808080u, 0xFFA0B0C0u, 0xFF202830u, 0xFF6080A0u,
                                              0xFFC0C0B0u, 0xFF000000u, 0xFF403020u, 0xFF8090A0u};
    return kFogs[rng.below(8)];
}

// Appends one program group (a material and the states using it) to the universe.
void add_group(Universe& u, Rng& rng, std::size_t count, MaterialClass cls, Role role, std::uint32_t level,
               const SessionTargets& targets, std::uint32_t fog) {
    u.exotic_accumulator += role == Role::kRare ? kExoticPerMilleRare : kExoticPerMilleCommon;
    ProgramKind kind = ProgramKind::kCommon;
    if (u.exotic_accumulator >= 1000) {
        u.exotic_accumulator -= 1000;
        kind = u.exotic_count++ % 2 == 0 ? ProgramKind::kLaterModes : ProgramKind::kOdd;
    }
    const Program program = make_program(rng, cls, kind);
    const HostState primary = make_host(rng, program, targets, HostVariant::kPrimary);
    for (std::size_t i = 0; i < count; ++i) {
        UniverseState s;
        s.role = role;
        s.level = level;
        s.program = program;
        s.host = primary;
        if (i > 0) {
            // 0 dynamic-only sibling, 1 cull, 2 blend fade, 3 vertex layout, 4 topology, 5 depth-equal pass,
            // 6 decal, 7 garbage words past the stage count, 8 disabled stage with a mode, 9 stale alpha func
            const unsigned w[] = {30, 11, 9, 14, 9, 6, 4, 7, 6, 4};
            switch (rng.weighted(w)) {
                case 0: break;
                case 1: s.host = make_host(rng, program, targets, HostVariant::kCull); break;
                case 2: s.host = make_host(rng, program, targets, HostVariant::kBlendFade); break;
                case 3: s.host = make_host(rng, program, targets, HostVariant::kLayout); break;
                case 4: s.host = make_host(rng, program, targets, HostVariant::kTopology); break;
                case 5: s.host = make_host(rng, program, targets, HostVariant::kDepthEqual); break;
                case 6: s.host = make_host(rng, program, targets, HostVariant::kDecal); break;
                case 7: s.program = with_garbage_past_stage_count(program, rng); break;
                case 8: s.program = with_disabled_stage_mode(program, rng); break;
                default: s.program = with_stale_alpha_func(program, rng); break;
            }
        }
        s.dynamic = make_dynamic(rng, s.program, fog);
        const bool reads_nothing_dynamic = cls == MaterialClass::kDepthOnly || cls == MaterialClass::kShadowVolume;
        s.has_dynamic = !(reads_nothing_dynamic && rng.chance(500));
        s.animated = s.has_dynamic && rng.chance(100);
        u.states.push_back(std::move(s));
    }
}

std::size_t group_size(Rng& rng) {
    const unsigned w[] = {40, 25, 15, 10, 5, 2, 2, 1};
    return rng.weighted(w) + 1;
}

Universe build_universe(std::uint64_t seed, std::uint64_t total, const SessionTargets& targets) {
    Universe u;
    Rng rng(mix_seed(seed, 0x756E6976));  // "univ"
    u.states.reserve(total);
    u.exotic_accumulator = static_cast<std::uint32_t>(rng.below(1000));
    const std::uint64_t global_count = total <= 1 ? total : std::clamp<std::uint64_t>(total * 6 / 100, 1, total - 1);
    const std::uint64_t level_count = std::clamp<std::uint64_t>(total / 150, 1, 64);

    const std::uint32_t global_fog = fog_colour(rng);
    while (u.states.size() < global_count) {
        const std::size_t n = std::min<std::size_t>(group_size(rng), global_count - u.states.size());
        add_group(u, rng, n, pick_class(rng, true), Role::kGlobal, 0, targets, global_fog);
    }
    for (std::uint32_t i = 0; i < u.states.size(); ++i) u.global.push_back(i);

    const std::uint64_t level_states = total - global_count;
    u.levels.resize(level_count);
    for (std::uint64_t l = 0; l < level_count; ++l) {
        Level& level = u.levels[l];
        const std::uint64_t size = level_states / level_count + (l < level_states % level_count ? 1 : 0);
        level.first = static_cast<std::uint32_t>(u.states.size());
        const std::uint32_t fog = fog_colour(rng);
        while (u.states.size() < level.first + size) {
            const std::size_t n = std::min<std::size_t>(group_size(rng), level.first + size - u.states.size());
            const Role role = rng.chance(150) ? Role::kRare : Role::kLevel;
            add_group(u, rng, n, pick_class(rng, false), role, static_cast<std::uint32_t>(l), targets, fog);
        }
        level.end = static_cast<std::uint32_t>(u.states.size());
        for (std::uint32_t i = level.first; i < level.end; ++i)
            (u.states[i].role == Role::kRare ? level.rare : level.common).push_back(i);
    }

    // Popularity: a random rank inside each pool, Zipf weight by rank.
    auto rank_pool = [&](const std::vector<std::uint32_t>& pool, std::uint64_t offset) {
        std::vector<std::uint32_t> order(pool);
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
        for (std::size_t r = 0; r < order.size(); ++r) u.states[order[r]].popularity = zipf_weight(r, offset);
    };
    rank_pool(u.global, 1);
    for (const Level& level : u.levels) rank_pool(level.common, 2);
    return u;
}

// Serialized pieces of a state, built on first use.
struct StateText {
    std::string program, host, dynamic;
};

class TraceWriter {
public:
    TraceWriter(const Options& o, Universe& u, BufferedOut& out) : o_(o), u_(u), out_(out) {
        text_.resize(u.states.size());
        defined_.assign(u.states.size(), false);
        used_.assign(u.states.size(), false);
    }

    void capture_record() {
        std::string line;
        StringSink s(line);
        s.raw("{\"type\":\"capture\",\"format\":\"shaderbake-trace/1\",\"guest\":\"nv2a\","
              "\"generator\":\"shaderbake-tracegen\",\"seed\":");
        s.u64(o_.seed);
        s.raw(",\"title\":");
        s.quoted(o_.title);
        s.raw("}\n");
        out_.raw(line);
        ++records_;
    }

    void draw(std::uint64_t frame, std::uint64_t index, std::uint32_t state) {
        if (!used_[state]) {
            used_[state] = true;
            ++distinct_;
        }
        if (o_.shape == Shape::kRef) {
            if (!defined_[state]) define_state(state);
            out_.reserve(96);
            out_.lit("{\"type\":\"draw\",\"frame\":");
            out_.u64(frame);
            out_.lit(",\"draw\":");
            out_.u64(index);
            out_.lit(",\"state\":\"s");
            out_.u64(state);
            out_.lit("\"}\n");
        } else {
            const StateText& t = text(state);
            out_.reserve(64);
            out_.lit("{\"type\":\"draw\",\"frame\":");
            out_.u64(frame);
            out_.lit(",\"draw\":");
            out_.u64(index);
            out_.lit(",\"program\":");
            out_.raw(t.program);
            out_.raw(",\"host\":");
            out_.raw(t.host);
            const UniverseState& s = u_.states[state];
            if (s.has_dynamic) {
                out_.raw(",\"dynamic\":");
                if (s.animated) {
                    // A fade or pulse driven by the game: constant alphas change every draw.
                    DynamicValues d = s.dynamic;
                    const std::uint32_t a = static_cast<std::uint32_t>((frame * 5 + index * 3) & 0xFF);
                    d.c0[0] = (d.c0[0] & 0x00FFFFFFu) | a << 24;
                    d.final_c0 = (d.final_c0 & 0x00FFFFFFu) | (255 - a) << 24;
                    scratch_.clear();
                    append_dynamic_json(scratch_, d);
                    out_.raw(scratch_);
                } else {
                    out_.raw(t.dynamic);
                }
            }
            out_.raw("}\n");
        }
        ++records_;
        ++draws_;
    }

    std::uint64_t records() const { return records_; }
    std::uint64_t draws() const { return draws_; }
    std::uint64_t distinct() const { return distinct_; }

private:
    const StateText& text(std::uint32_t i) {
        StateText& t = text_[i];
        if (t.program.empty()) {
            const UniverseState& s = u_.states[i];
            append_program_json(t.program, s.program);
            append_host_json(t.host, s.host);
            if (s.has_dynamic) append_dynamic_json(t.dynamic, s.dynamic);
        }
        return t;
    }

    void define_state(std::uint32_t i) {
        defined_[i] = true;
        const UniverseState& s = u_.states[i];
        scratch_.clear();
        StringSink sink(scratch_);
        sink.raw("{\"type\":\"state\",\"id\":\"s");
        sink.u64(i);
        sink.raw("\",\"program\":");
        append_program_json(scratch_, s.program);
        sink.raw(",\"host\":");
        append_host_json(scratch_, s.host);
        if (s.has_dynamic) {
            sink.raw(",\"dynamic\":");
            append_dynamic_json(scratch_, s.dynamic);
        }
        sink.raw("}\n");
        out_.raw(scratch_);
        ++records_;
    }

    const Options& o_;
    Universe& u_;
    BufferedOut& out_;
    std::vector<StateText> text_;
    std::vector<bool> defined_, used_;
    std::string scratch_;
    std::uint64_t records_ = 0, draws_ = 0, distinct_ = 0;
};

// Where a draw goes in the frame's submission order.
unsigned pass_of(MaterialClass c) {
    switch (c) {
        case MaterialClass::kOffscreen: return 0;
        case MaterialClass::kDepthOnly: return 1;
        case MaterialClass::kOpaque: return 2;
        case MaterialClass::kAlphaTested: return 3;
        case MaterialClass::kSky: return 4;
        case MaterialClass::kDecal: return 5;
        case MaterialClass::kShadowVolume: return 6;
        case MaterialClass::kWater: return 7;
        case MaterialClass::kBlended:
        case MaterialClass::kAdditive: return 8;
        case MaterialClass::kHud: return 9;
    }
    return 2;
}
bool sorted_by_depth(unsigned pass) { return pass == 7 || pass == 8; }

std::uint64_t average_state_bytes(const Universe& u) {
    std::uint64_t total = 0, n = 0;
    std::string s;
    for (std::size_t i = 0; i < u.states.size(); i += 1 + u.states.size() / 256) {
        s.clear();
        append_program_json(s, u.states[i].program);
        append_host_json(s, u.states[i].host);
        append_dynamic_json(s, u.states[i].dynamic);
        total += s.size() + 40;
        ++n;
    }
    return n == 0 ? 2000 : total / n;
}

struct Summary {
    std::uint64_t records = 0, draws = 0, frames = 0, bytes = 0, distinct = 0;
};

Summary generate(const Options& o, BufferedOut& out) {
    Rng setup(mix_seed(o.seed, 0x7365747570));  // "setup"
    const SessionTargets targets = make_session_targets(setup);
    Universe u = build_universe(o.seed, o.states, targets);

    // Expected session length: it paces the level drift and the rare-state schedule.
    std::uint64_t expected = o.frames != 0 ? o.frames : kDefaultFrames;
    if (o.target_bytes != 0) {
        const std::uint64_t state_bytes = average_state_bytes(u);
        const std::uint64_t per_draw = o.shape == Shape::kRef ? 52 : state_bytes;
        const std::uint64_t fixed = o.shape == Shape::kRef ? u.states.size() * state_bytes * 3 / 4 : 0;
        const std::uint64_t budget = o.target_bytes > fixed ? o.target_bytes - fixed : o.target_bytes / 4;
        const std::uint64_t estimate = std::max<std::uint64_t>(1, budget / (per_draw * o.draws_per_frame));
        expected = o.frames != 0 ? std::min(o.frames, estimate) : estimate;
    }
    const std::uint64_t frame_limit = o.frames != 0 ? o.frames : (o.target_bytes != 0 ? UINT64_MAX : kDefaultFrames);
    const std::uint64_t level_count = u.levels.size();
    const std::uint64_t frames_per_level = std::max<std::uint64_t>(1, expected / level_count);
    const std::uint64_t menu_frames = std::min<std::uint64_t>(30, expected / 40);

    TraceWriter writer(o, u, out);
    writer.capture_record();

    Rng rng(mix_seed(o.seed, 0x6672616D6573));  // "frames"
    CumulativeTable global_table, hud_table, window_table;
    for (std::uint32_t i : u.global) {
        global_table.add(i, u.states[i].popularity);
        if (u.states[i].program.cls == MaterialClass::kHud) hud_table.add(i, u.states[i].popularity);
    }
    if (hud_table.empty()) hud_table = global_table;

    struct Scheduled {
        std::uint64_t frame;
        std::uint32_t state;
    };
    std::vector<Scheduled> rare_schedule;  // kept sorted by (frame, state), consumed from the front
    std::size_t rare_next = 0;

    std::int64_t load_walk = 0;  // slowly varying scene complexity, percent
    std::uint64_t current_level = UINT64_MAX, window_start = UINT64_MAX;
    std::uint64_t level_frame0 = 0;

    struct Pick {
        std::uint64_t sort_key;
        std::uint32_t state;
    };
    std::vector<Pick> picks;
    std::uint64_t frame = 0;
    for (; frame < frame_limit; ++frame) {
        // Level schedule: levels in order, then backtracking to random earlier ones.
        const std::uint64_t block = frame < menu_frames ? 0 : (frame - menu_frames) / frames_per_level;
        const std::uint64_t level_index =
            block < level_count ? block : mix_seed(o.seed ^ 0x6261636B, block) % level_count;
        if (level_index != current_level) {
            current_level = level_index;
            level_frame0 = frame;
            window_start = UINT64_MAX;
            Level& level = u.levels[level_index];
            if (!level.visited) {
                level.visited = true;
                std::vector<Scheduled> fresh;
                for (std::uint32_t s : level.rare) {
                    const std::uint64_t at = frame + 1 + rng.below(frames_per_level);
                    fresh.push_back({at, s});
                    if (rng.chance(350)) fresh.push_back({at + 1 + rng.below(240), s});
                }
                rare_schedule.erase(rare_schedule.begin(), rare_schedule.begin() + static_cast<std::ptrdiff_t>(rare_next));
                rare_next = 0;
                rare_schedule.insert(rare_schedule.end(), fresh.begin(), fresh.end());
                std::sort(rare_schedule.begin(), rare_schedule.end(), [](const Scheduled& a, const Scheduled& b) {
                    return a.frame != b.frame ? a.frame < b.frame : a.state < b.state;
                });
            }
        }
        const Level& level = u.levels[level_index];
        const std::uint64_t in_level = frame - level_frame0;
        const bool menu = frame < menu_frames;
        const bool loading = !menu && in_level < std::min<std::uint64_t>(6, frames_per_level / 10);

        // Working set: a window sliding across the level's common states.
        const std::uint64_t common = level.common.size();
        const std::uint64_t width = std::min<std::uint64_t>(common, std::max<std::uint64_t>(8, common * 2 / 5));
        const std::uint64_t start =
            common <= width ? 0 : (common - width) * std::min(in_level, frames_per_level) / frames_per_level;
        if (start != window_start) {
            window_start = start;
            window_table.clear();
            for (std::uint64_t i = start; i < start + width; ++i) {
                const std::uint32_t s = level.common[i];
                // States near the window's edges are fading in or out of view.
                const bool edge = (i - start) * 8 < width || (start + width - i) * 8 < width;
                window_table.add(s, edge ? u.states[s].popularity / 3 : u.states[s].popularity);
            }
        }

        // Draw count: scene complexity drifts, with occasional spikes (explosions, crowds).
        load_walk = std::clamp<std::int64_t>(load_walk + rng.range(-3, 3), -30, 30);
        const auto jitter = static_cast<std::uint64_t>(rng.range(90, 110));
        std::uint64_t draw_count =
            (o.draws_per_frame * static_cast<std::uint64_t>(100 + load_walk) * jitter + 5000) / 10000;
        if (rng.chance(30)) draw_count = draw_count * 3 / 2;
        if (menu || loading) draw_count = std::min<std::uint64_t>(draw_count, static_cast<std::uint64_t>(rng.range(2, 8)));
        draw_count = std::max<std::uint64_t>(1, draw_count);

        picks.clear();
        std::uint64_t seq = 0;
        auto add_pick = [&](std::uint32_t s, std::uint64_t run) {
            const unsigned pass = pass_of(u.states[s].program.cls);
            const std::uint64_t within = pass == 9 ? 0 : (sorted_by_depth(pass) ? rng.below(1u << 20) : s);
            for (std::uint64_t r = 0; r < run; ++r) {
                picks.push_back({std::uint64_t{pass} << 60 | (within & 0xFFFFFFF) << 32 | seq, s});
                ++seq;
            }
        };
        while (picks.size() < draw_count) {
            std::uint32_t s;
            if (menu || loading) s = hud_table.sample(rng);
            else if (window_table.empty() || rng.chance(200)) s = global_table.empty() ? window_table.sample(rng) : global_table.sample(rng);
            else s = window_table.sample(rng);
            // Several meshes share a material: runs of the same state in one batch.
            const unsigned w[] = {60, 30, 10};
            const std::size_t kind = rng.weighted(w);
            const std::uint64_t run = kind == 0 ? 1 : (kind == 1 ? rng.range(2, 4) : rng.range(5, 12));
            add_pick(s, std::min<std::uint64_t>(run, draw_count - picks.size()));
        }
        while (!menu && !loading && rare_next < rare_schedule.size() && rare_schedule[rare_next].frame <= frame) {
            add_pick(rare_schedule[rare_next].state, 1);
            ++rare_next;
        }
        // Keys are distinct (seq is unique), so the order does not depend on the sort implementation.
        std::sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.sort_key < b.sort_key; });
        for (std::size_t i = 0; i < picks.size(); ++i) writer.draw(frame, i, picks[i].state);

        if (!out.ok()) break;
        if (o.target_bytes != 0 && out.bytes() >= o.target_bytes) {
            ++frame;
            break;
        }
    }
    out.flush();
    Summary sum;
    sum.records = writer.records();
    sum.draws = writer.draws();
    sum.frames = frame;
    sum.bytes = out.bytes();
    sum.distinct = writer.distinct();
    return sum;
}

}  // namespace
}  // namespace shaderbake::tracegen

int main(int argc, char** argv) {
    using namespace shaderbake::tracegen;
    Options o;
    CLI::App app{"Writes a large, realistic nv2a trace (shaderbake-trace/1, JSON Lines) reproducibly from a seed.",
                 "shaderbake-tracegen"};
    std::string shape = "ref";
    app.add_option("--seed", o.seed, "Seed; the same seed and options give byte-identical output")
        ->capture_default_str();
    app.add_option("--frames", o.frames, "Number of frames (default 1000, or unlimited with --target-bytes)")
        ->check(CLI::PositiveNumber);
    app.add_option("--draws-per-frame", o.draws_per_frame, "Average draws per frame (varies per frame)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--states", o.states, "Size of the guest-state universe")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--shape", shape,
                   "inline: draws carry program/host/dynamic; ref: state records defined before first use")
        ->check(CLI::IsMember({"inline", "ref"}))
        ->capture_default_str();
    app.add_option("--target-bytes", o.target_bytes, "Stop after the frame where the output reaches N bytes")
        ->check(CLI::PositiveNumber);
    app.add_option("-o,--output", o.output, "Output file ('-' for stdout)")->capture_default_str();
    app.add_option("--title", o.title, "Title stored in the capture record")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    o.shape = shape == "inline" ? Shape::kInline : Shape::kRef;
    if (o.states > 0xFFFFFFF) {
        std::fprintf(stderr, "error: --states %llu is too large (at most %u)\n",
                     static_cast<unsigned long long>(o.states), 0xFFFFFFFu);
        return 2;
    }

    std::FILE* file = stdout;
    if (o.output != "-") {
        file = std::fopen(o.output.c_str(), "wb");
        if (file == nullptr) {
            std::fprintf(stderr, "error: cannot open '%s' for writing: %s\n", o.output.c_str(), std::strerror(errno));
            return 5;
        }
    }
    Summary sum;
    bool ok = true;
    {
        BufferedOut out(file);
        sum = generate(o, out);
        ok = out.ok();
    }
    if (file != stdout && std::fclose(file) != 0) ok = false;
    if (!ok) {
        std::fprintf(stderr, "error: writing '%s' failed: %s\n", o.output.c_str(), std::strerror(errno));
        return 5;
    }
    std::fprintf(stderr,
                 "shaderbake-tracegen: %llu records, %llu draws, %llu frames, %llu bytes, %llu distinct states "
                 "(seed %llu, shape %s)\n",
                 static_cast<unsigned long long>(sum.records), static_cast<unsigned long long>(sum.draws),
                 static_cast<unsigned long long>(sum.frames), static_cast<unsigned long long>(sum.bytes),
                 static_cast<unsigned long long>(sum.distinct), static_cast<unsigned long long>(o.seed),
                 shape.c_str());
    return 0;
}
