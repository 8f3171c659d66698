// The load bench/serve_load.py puts on `canitrun serve`: CLIENTS threads, each with one
// keep-alive connection (cpp-httplib's client, as the server is built on), send GET TARGET until
// REQUESTS requests have been sent in all or SECONDS have passed. Python's clients took a core's
// worth of the two the server had; these take a few percent of it, so the figures describe the
// server, not the load.
//
// Usage: serve_client PORT TARGET REQUESTS SECONDS CLIENTS [FIRST=0]
// "{n}" in TARGET becomes a number new to each request (FIRST, FIRST + 1, ...), so that a
// question can be asked that the server's answer cache has not seen.
// Prints one line: requests, seconds, requests per second, p50 and p99 latency in ms, errors
// (a status other than 200, or no answer).
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::string target_for(const std::string& pattern, long n) {
    std::string t = pattern;
    const auto at = t.find("{n}");
    if (at != std::string::npos) t.replace(at, 3, std::to_string(n));
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: serve_client PORT TARGET REQUESTS SECONDS CLIENTS [FIRST]\n");
        return 2;
    }
    const int port = std::stoi(argv[1]);
    const std::string pattern = argv[2];
    const long requests = std::stol(argv[3]);
    const double seconds = std::stod(argv[4]);
    const int clients = std::stoi(argv[5]);
    const long first = argc > 6 ? std::stol(argv[6]) : 0;

    std::atomic<long> next{0};
    std::atomic<long> errors{0};
    std::vector<std::vector<double>> latencies(static_cast<std::size_t>(clients));
    const auto start = Clock::now();
    const auto deadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            httplib::Client client("127.0.0.1", port);
            client.set_keep_alive(true);
            client.set_url_encode(false);  // the targets are sent as written
            client.set_read_timeout(10, 0);
            auto& mine = latencies[static_cast<std::size_t>(c)];
            while (Clock::now() < deadline) {
                const long n = next.fetch_add(1);
                if (n >= requests) break;
                const auto sent = Clock::now();
                const auto r = client.Get(target_for(pattern, first + n));
                mine.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
                if (!r || r->status != 200) ++errors;
            }
        });
    }
    for (auto& t : threads) t.join();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    const auto at = [&](double q) {
        if (all.empty()) return 0.0;
        return all[std::min(all.size() - 1,
                            static_cast<std::size_t>(q * static_cast<double>(all.size())))];
    };
    std::printf("%zu %.3f %.1f %.3f %.3f %ld\n", all.size(), wall,
                static_cast<double>(all.size()) / wall, at(0.5), at(0.99), errors.load());
    return errors.load() == 0 ? 0 : 1;
}
