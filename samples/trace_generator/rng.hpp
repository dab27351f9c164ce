// SPDX-License-Identifier: MIT
#pragma once
// Deterministic random numbers for the trace generator.
//
// The same seed must give byte-identical traces on every platform and standard library, so nothing here
// uses <random> distributions or floating point: xoshiro256** seeded through splitmix64, and integer-only
// helpers (multiply-high range reduction, per-mille chances, integer weight tables).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shaderbake::tracegen {

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Stateless mix of a seed and a stream id: lets a state, a program or a frame own an independent stream
// whose values do not depend on how many numbers other parts of the generator drew before it.
inline std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t s = seed ^ (stream * 0xD1B54A32D192ED03ull);
    splitmix64(s);
    return splitmix64(s);
}

// High 64 bits of a 64x64 product, written portably (no __int128) so every compiler agrees.
inline std::uint64_t mul_high64(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo;
    const std::uint64_t hi_lo = a_hi * b_lo;
    const std::uint64_t lo_hi = a_lo * b_hi;
    const std::uint64_t hi_hi = a_hi * b_hi;
    const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

class Rng {
public:
    explicit Rng(std::uint64_t seed) {
        std::uint64_t sm = seed;
        for (auto& word : s_) word = splitmix64(sm);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, n); n == 0 gives 0. The multiply-high reduction has a bias below 2^-40 for the sizes
    // used here, which is irrelevant for synthetic traces and keeps the draw count per call fixed.
    std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : mul_high64(next(), n); }

    // Uniform in [lo, hi] (inclusive).
    std::int64_t range(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
    }

    // True with probability per_mille / 1000.
    bool chance(std::uint32_t per_mille) { return below(1000) < per_mille; }

    std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
    std::uint8_t u8() { return static_cast<std::uint8_t>(next() >> 56); }

    // Index chosen with probability proportional to weights[i] (integer weights; all-zero picks 0).
    template <typename Container>
    std::size_t weighted(const Container& weights) {
        std::uint64_t total = 0;
        for (auto w : weights) total += static_cast<std::uint64_t>(w);
        std::uint64_t r = below(total);
        std::size_t i = 0;
        for (auto w : weights) {
            if (r < static_cast<std::uint64_t>(w)) return i;
            r -= static_cast<std::uint64_t>(w);
            ++i;
        }
        return 0;
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

// Zipf-like popularity with exponent 1 in integer arithmetic: weight(rank) = 2^32 / (rank + offset).
// The offset flattens the head (offset 1 is a pure 1/r law).
inline std::uint64_t zipf_weight(std::uint64_t rank, std::uint64_t offset) {
    return (std::uint64_t{1} << 32) / (rank + offset);
}

// Cumulative weight table sampled by binary search: O(log n) per draw, no floating point.
class CumulativeTable {
public:
    void clear() {
        cumulative_.clear();
        items_.clear();
    }
    void add(std::uint32_t item, std::uint64_t weight) {
        if (weight == 0) return;
        const std::uint64_t base = cumulative_.empty() ? 0 : cumulative_.back();
        cumulative_.push_back(base + weight);
        items_.push_back(item);
    }
    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }

    std::uint32_t sample(Rng& rng) const {
        const std::uint64_t r = rng.below(cumulative_.back());
        std::size_t lo = 0, hi = cumulative_.size() - 1;
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (cumulative_[mid] > r) hi = mid;
            else lo = mid + 1;
        }
        return items_[lo];
    }

private:
    std::vector<std::uint64_t> cumulative_;
    std::vector<std::uint32_t> items_;
};

}  // namespace shaderbake::tracegen
