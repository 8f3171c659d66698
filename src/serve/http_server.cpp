#include "http_server.hpp"

#include <httplib.h>

#include <chrono>
#include <csignal>
#include <ostream>
#include <thread>

#include "api_answer.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "request_deadline.hpp"
#include "request_target.hpp"
#include "web_pages.hpp"

namespace canitrun::serve {
namespace {

// Bounds on what one request may hold. httplib itself refuses a request line or a header line
// over 8,192 bytes (its build's CPPHTTPLIB_HEADER_MAX_LENGTH); these add a bound on the count
// of header lines and on a body, which no GET needs.
constexpr std::size_t kMaxHeaders = 64;
constexpr std::size_t kMaxBody = 4096;
constexpr int kReadTimeoutS = 5;
constexpr int kWriteTimeoutS = 5;

// Every response says the same about itself: no script or style from another host, no
// framing, no guessing of types.
void security_headers(httplib::Response& res) {
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                   "connect-src 'self'; frame-ancestors 'none'");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cache-Control", "no-store");
    // What a page of a static copy (canitrun site) asks to know a live API answers beside it
    // (calculator.js).
    res.set_header("X-Canitrun-Api", "v1");
}

void send(httplib::Response& res, const HttpAnswer& a) {
    res.status = a.status;
    res.set_content(a.body, a.content_type);
    if (a.exit_code != 0) res.set_header("X-Canitrun-Exit", std::to_string(a.exit_code));
    // After a refused request the rest of the connection is not trusted to be a request.
    if (a.status >= 400) res.set_header("Connection", "close");
    security_headers(res);
}

HttpAnswer answer_request(const httplib::Request& req, const ApiPolicy& policy) {
    if (req.method != "GET" && req.method != "HEAD") {
        return error_answer(405, "only GET is served");
    }
    if (req.headers.size() > kMaxHeaders) {
        return error_answer(431, "more than " + std::to_string(kMaxHeaders) + " header lines");
    }
    // httplib reads no body for a GET; one announced would be read as the next request.
    if (!req.body.empty() || req.has_header("Content-Length") ||
        req.has_header("Transfer-Encoding")) {
        return error_answer(400, "a GET request carries no body");
    }
    const auto target = parse_target(req.target);
    if (!target) return error_answer(target.error().status, target.error().message);
    if (target->path.starts_with("/api/")) return api_answer(*target, policy);
    return page_answer(*target, policy);
}

// One line per request on stderr: the client, the method and target, the status and the body
// bytes, with the target cut short and made printable (it is the client's text).
void access_log(std::ostream& err, const httplib::Request& req, const httplib::Response& res) {
    std::string target = req.target.substr(0, 200);
    for (char& c : target) {
        if (c < 0x20 || c > 0x7e) c = '?';
    }
    std::string method = req.method.substr(0, 16);
    for (char& c : method) {
        if (c < 0x20 || c > 0x7e) c = '?';
    }
    err << req.remote_addr << " \"" << method << " " << target << "\" " << res.status << " "
        << res.body.size() << "\n"
        << std::flush;
}

// httplib's pool, with each connection's reads under the request deadline (request_deadline.hpp).
class DeadlinePool : public httplib::ThreadPool {
  public:
    using httplib::ThreadPool::ThreadPool;
    void enqueue(std::function<void()> fn) override {
        httplib::ThreadPool::enqueue([fn = std::move(fn)] {
            arm_request_deadline();
            fn();
            disarm_request_deadline();
        });
    }
};

// SIGINT and SIGTERM are taken by one thread (blocked in every other), which stops the
// server: listen() returns, the pool finishes the requests it holds, and main returns 0.
void stop_on_signals(httplib::Server& server, sigset_t signals) {
    std::thread([&server, signals] {
        int signal = 0;
        sigwait(&signals, &signal);
        server.stop();
    }).detach();
}

void configure(httplib::Server& server, const ServeOptions& options, std::ostream& err,
               const ApiPolicy& policy) {
    const int threads = options.threads;
    server.new_task_queue = [threads] {
        return new DeadlinePool(static_cast<std::size_t>(threads));
    };
    server.set_read_timeout(kReadTimeoutS, 0);
    server.set_write_timeout(kWriteTimeoutS, 0);
    server.set_keep_alive_timeout(kReadTimeoutS);
    server.set_keep_alive_max_count(100);
    server.set_payload_max_length(kMaxBody);
    // The headers and the body leave in separate writes: with Nagle's algorithm the body waits
    // for the client's delayed ACK of the headers, 40 ms on Linux, on every keep-alive request.
    server.set_tcp_nodelay(true);
    // SO_REUSEADDR alone: httplib's default adds SO_REUSEPORT, which would let a second
    // process (another user's, too) bind the same port and take part of the requests.
    server.set_socket_options([](int sock) {
        const int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // Every request, whatever its path, goes through one function: no route of httplib's own
    // (no file mount) can answer.
    // The request has arrived when it is routed: no deadline while it is answered, and a new
    // one for the next request on the connection.
    server.set_pre_routing_handler([policy](const httplib::Request& req, httplib::Response& res) {
        disarm_request_deadline();
        send(res, answer_request(req, policy));
        arm_request_deadline();
        return httplib::Server::HandlerResponse::Handled;
    });
    // A request httplib refused before routing (a line too long, a bad request line, headers
    // that did not arrive within the deadline).
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return;
        if (request_deadline_passed()) {
            res.status = 408;
            send(res, error_answer(408, "the request did not arrive within " +
                                            std::to_string(kRequestDeadline.count()) + " s"));
            return;
        }
        send(res, error_answer(res.status, res.status == 414 ? "the request line is too long"
                                                             : "a malformed request"));
    });
    server.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
            send(res, error_answer(500, "internal error; please report the request"));
        });
    if (!options.quiet) {
        server.set_logger([&err](const httplib::Request& req, const httplib::Response& res) {
            access_log(err, req, res);
        });
    }
}

}  // namespace

int serve_http(const ServeOptions& options, std::ostream& err) {
    const auto db = embedded_database();
    if (!db) {
        err << "canitrun: error: " << db.error().message << "\n";
        return 2;
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts: all inherit it
    httplib::Server server;
    const ApiPolicy policy{*db, options.allow_remote};
    configure(server, options, err, policy);
    const int port = options.port == 0
                         ? server.bind_to_any_port(options.bind)
                         : (server.bind_to_port(options.bind, options.port) ? options.port : -1);
    if (port <= 0) {
        err << "canitrun: error: cannot listen on " << options.bind << " port " << options.port
            << "; is it in use? --port picks another\n";
        return 2;
    }
    if (!loopback_bind(options.bind)) {
        err << "canitrun: warning: listening on " << options.bind
            << ", not only this machine: anyone who reaches it can ask\n";
    }
    err << "canitrun: serving http://" << options.bind << ":" << port << "/\n" << std::flush;
    stop_on_signals(server, signals);
    server.listen_after_bind();
    err << "canitrun: stopped\n";
    return 0;
}

}  // namespace canitrun::serve
