#pragma once
// A bound on the whole time a request takes to arrive. httplib 0.11 (Debian's build) times each
// read on its own (5 s), so a client that trickles a byte every few seconds would hold a worker
// for as long as it likes. This binary defines recv(), which the library calls for every read of
// a request, and refuses a read once the worker's request has been arriving for longer than the
// deadline: the connection is closed (the request line unfinished) or answered 408 (a header
// line unfinished). The clock starts at the first read of each request on a worker thread and
// stops while the request is answered; threads that never arm it (the listener, anything the
// answer itself reads from the network) read as before.

#include <chrono>

namespace canitrun::serve {

inline constexpr std::chrono::seconds kRequestDeadline{8};

// On a worker thread: the next read starts a request's clock (call when a connection is taken
// and after each answer, for the next request on a keep-alive connection).
void arm_request_deadline();

// On a worker thread: the request has arrived; no deadline while it is answered.
void disarm_request_deadline();

// Whether this thread's last refused read was refused for the deadline (for the error status).
bool request_deadline_passed();

}  // namespace canitrun::serve
