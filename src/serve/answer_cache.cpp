#include "answer_cache.hpp"

#include <list>
#include <mutex>
#include <unordered_map>

namespace canitrun::serve {
namespace {

class AnswerCache {
  public:
    bool find(const std::string& key, cli::Asked& out) {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = index_.find(key);
        if (it == index_.end()) return false;
        order_.splice(order_.begin(), order_, it->second);  // now the most recent
        out = it->second->answer;
        return true;
    }

    void put(const std::string& key, const cli::Asked& answer) {
        const std::size_t size = key.size() + answer.out.size() + answer.err.size();
        if (size > kCacheBytes / 8) return;  // one answer never crowds out the rest
        const std::lock_guard<std::mutex> lock(mutex_);
        if (index_.contains(key)) return;  // another thread answered it meanwhile
        order_.push_front(Entry{key, answer, size});
        index_.emplace(key, order_.begin());
        bytes_ += size;
        while (order_.size() > kCacheEntries || bytes_ > kCacheBytes) {
            bytes_ -= order_.back().size;
            index_.erase(order_.back().key);
            order_.pop_back();
        }
    }

  private:
    struct Entry {
        std::string key;
        cli::Asked answer;
        std::size_t size = 0;
    };
    std::mutex mutex_;
    std::list<Entry> order_;  // most recent first
    std::unordered_map<std::string, std::list<Entry>::iterator> index_;
    std::size_t bytes_ = 0;
};

AnswerCache& cache() {
    static AnswerCache instance;
    return instance;
}

}  // namespace

cli::Asked cached_ask(const std::vector<std::string>& argv, bool cacheable) {
    if (!cacheable) return cli::ask(argv);
    std::string key;
    for (const std::string& a : argv) {
        key += a;
        key += '\0';  // no argument holds a NUL (request_target.cpp refuses it)
    }
    cli::Asked answer;
    if (cache().find(key, answer)) return answer;
    answer = cli::ask(argv);
    cache().put(key, answer);
    return answer;
}

}  // namespace canitrun::serve
