#pragma once
// f(0) .. f(n-1) on the machine's cores, the results in index order: for the questions asked of
// every model of the database (`fit`), whose answers do not depend on one another. The planner
// is pure (its only caches are thread_local), so the answers are the ones a loop would give; an
// exception is rethrown from the first index that threw, as a loop would meet it. `order`, when
// given (a permutation of 0 .. n-1), is the order the indices are handed out in: the costliest
// first, so that no core is left alone with a large one at the end.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

namespace canitrun {

// At most this many threads: past it the models run out before the threads start paying.
inline constexpr std::size_t kMaxPlannerThreads = 8;

template <typename F>
auto parallel_map(std::size_t n, F f, std::span<const std::size_t> order = {})
    -> std::vector<std::invoke_result_t<F&, std::size_t>> {
    using R = std::invoke_result_t<F&, std::size_t>;
    std::vector<std::optional<R>> slots(n);
    std::vector<std::exception_ptr> errors(n);
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t k = next++; k < n; k = next++) {
            const std::size_t i = order.size() == n ? order[k] : k;
            try {
                slots[i].emplace(f(i));
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const std::size_t cores = std::max<std::size_t>(std::thread::hardware_concurrency(), 1);
    const std::size_t helpers = std::min({cores, n, kMaxPlannerThreads}) - (n > 0 ? 1 : 0);
    std::vector<std::thread> threads;
    threads.reserve(helpers);
    for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
    work();  // this thread takes its share too
    for (auto& t : threads) t.join();
    std::vector<R> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (errors[i]) std::rethrow_exception(errors[i]);
        out.push_back(std::move(*slots[i]));
    }
    return out;
}

}  // namespace canitrun
