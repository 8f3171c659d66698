// Fuzzes the HTTP range reader's handling of what a server answers: the input scripts a server
// (status, Content-Range, a body cut short or padded) and holds the file it serves; the GGUF
// header is then read through the range reader. Any answer is bytes or a clear error, never a
// crash, a read outside what was received, or memory past the reader's bounds.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "canitrun/gguf.hpp"
#include "canitrun/range_source.hpp"
#include "canitrun/remote_model.hpp"

namespace {

class ScriptedServer final : public canitrun::HttpClient {
  public:
    ScriptedServer(std::string script, std::string file)
        : script_(std::move(script)), file_(std::move(file)) {}

    canitrun::Result<canitrun::HttpResponse> get(const canitrun::HttpRequest& request) override {
        const auto op = static_cast<unsigned char>(next());
        canitrun::HttpResponse r;
        r.url = request.url;
        const std::uint64_t first = request.range ? request.range->first : 0;
        const std::uint64_t last = request.range ? request.range->last : file_.size();
        const std::uint64_t end = std::min<std::uint64_t>(last + 1, file_.size());
        std::string body = first < file_.size() ? file_.substr(first, end - first) : std::string();
        switch (op % 8) {
            case 0:  // a well-behaved 206
                break;
            case 1:  // ranges ignored: the whole file
                r.status = 200;
                r.body = file_.substr(0, std::min<std::size_t>(file_.size(), request.max_body));
                count(r);
                return r;
            case 2:  // a body cut short
                body.resize(body.size() / 2);
                break;
            case 3:  // a body longer than asked
                body += std::string(static_cast<std::size_t>(next()) % 64, 'x');
                break;
            case 4:  // an error status
                r.status = 400 + static_cast<long>(next()) % 200;
                count(r);
                return r;
            case 5:  // no answer at all
                return canitrun::fail(canitrun::ErrorKind::io, "connection reset", "");
            default:
                break;
        }
        r.status = 206;
        std::uint64_t shown_first = first;
        std::uint64_t total = file_.size();
        if (op % 8 == 6) shown_first += static_cast<unsigned char>(next());
        if (op % 8 == 7)
            total = static_cast<std::uint64_t>(static_cast<unsigned char>(next())) << 20;
        if (body.size() > request.max_body) body.resize(request.max_body);
        r.body = body;
        r.headers.emplace_back("content-range", "bytes " + std::to_string(shown_first) + "-" +
                                                    std::to_string(shown_first + body.size() - 1) +
                                                    "/" + std::to_string(total));
        count(r);
        return r;
    }

  private:
    char next() {
        if (script_.empty()) return 0;
        const char c = script_[at_ % script_.size()];
        ++at_;
        return c;
    }
    std::string script_;
    std::string file_;
    std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::size_t script_len = std::min<std::size_t>(data[0], size - 1);
    const std::string script(reinterpret_cast<const char*>(data + 1), script_len);
    const std::string file(reinterpret_cast<const char*>(data + 1 + script_len),
                           size - 1 - script_len);
    ScriptedServer server(script, file);
    canitrun::RangeOptions o;
    o.first_block = 64;  // small blocks: many requests per input
    o.max_block = 4096;
    o.max_total = 1 << 20;
    auto source = canitrun::HttpRangeSource::open(server, "http://fuzz/model.gguf", o);
    if (!source) {
        if (source.error().message.empty()) std::abort();
        return 0;
    }
    const auto header = canitrun::read_gguf(**source);
    if (!header && header.error().message.empty()) std::abort();
    (void)canitrun::parse_content_range(script);
    (void)canitrun::parse_hf_files(file);
    (void)canitrun::parse_ollama_manifest(file);
    return 0;
}
