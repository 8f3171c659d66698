#include "request_deadline.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <optional>

namespace canitrun::serve {
namespace {

using Clock = std::chrono::steady_clock;

struct RequestClock {
    bool armed = false;                     // the next read starts the clock
    std::optional<Clock::time_point> ends;  // running: reads after this are refused
    bool passed = false;                    // the last refusal was for the deadline
};

thread_local RequestClock request_clock;

}  // namespace

void arm_request_deadline() {
    request_clock = RequestClock{true, std::nullopt, false};
}

void disarm_request_deadline() {
    request_clock.armed = false;
    request_clock.ends.reset();
}

bool request_deadline_passed() {
    return request_clock.passed;
}

}  // namespace canitrun::serve

// The library's reads come here: the function below is exported as recv() (the executable's
// definition comes first in the dynamic linker's search); the bytes are read by recvfrom(),
// which recv() is defined to equal. It is defined under its own name and given glibc's by an
// alias, so its parameter names are never held against glibc's reserved ones (__fd, __buf).
extern "C" ssize_t canitrun_serve_recv(int fd, void* buf, size_t len, int flags) {
    using canitrun::serve::kRequestDeadline;
    auto& c = canitrun::serve::request_clock;
    if (c.armed) {
        c.ends = canitrun::serve::Clock::now() + kRequestDeadline;
        c.armed = false;
    }
    // A peek reads nothing of the request: httplib peeks to see whether the client is still
    // there before it writes (the 408 included).
    if ((flags & MSG_PEEK) == 0 && c.ends && canitrun::serve::Clock::now() > *c.ends) {
        c.passed = true;
        errno = ETIMEDOUT;
        return -1;
    }
    return recvfrom(fd, buf, len, flags, nullptr, nullptr);
}

extern "C" ssize_t recv(int, void*, size_t, int) __attribute__((alias("canitrun_serve_recv")));
