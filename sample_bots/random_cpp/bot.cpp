// random_cpp: bids and plays uniformly at random among the legal options, in C++ with no
// library: it speaks JSON lines through the stdio bridge (docs/stdio.md), one message a line
// on stdin, one answer a line on stdout. Its randomness is seeded by the referee's bot_seed,
// so it plays a given game the same way every time. Logs go to stderr.
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

// The string value of a top-level key that comes before any nested object (the bridge
// writes "type" and "legal" first), e.g. "bid" for "type".
static std::string string_field(const std::string& line, const std::string& key) {
    const std::string marker = "\"" + key + "\":\"";
    const auto at = line.find(marker);
    if (at == std::string::npos) return "";
    const auto start = at + marker.size();
    return line.substr(start, line.find('"', start) - start);
}

static std::uint64_t number_field(const std::string& line, const std::string& key) {
    const std::string marker = "\"" + key + "\":";
    const auto at = line.find(marker);
    if (at == std::string::npos) return 0;
    return std::stoull(line.substr(at + marker.size()));
}

// The strings of the "legal" array: card names ("AS", "TH", "BB") or bids ("pass", "3").
static std::vector<std::string> legal(const std::string& line) {
    std::vector<std::string> options;
    auto at = line.find("\"legal\":[");
    if (at == std::string::npos) return options;
    at += 9;
    while (at < line.size() && line[at] != ']') {
        const auto open = line.find('"', at);
        const auto close = line.find('"', open + 1);
        if (open == std::string::npos || close == std::string::npos) break;
        options.push_back(line.substr(open + 1, close - open - 1));
        at = close + 1;
        if (at < line.size() && line[at] == ',') ++at;
    }
    return options;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937_64 rng(0);
    std::string line;
    while (std::getline(std::cin, line)) {
        const std::string type = string_field(line, "type");
        if (type == "hello") {
            rng.seed(number_field(line, "bot_seed"));
            std::cerr << "random_cpp: seat " << number_field(line, "seat") << "\n";
            std::cout << "{\"name\":\"random_cpp\"}" << std::endl;
        } else if (type == "bid" || type == "play") {
            const auto options = legal(line);
            const std::string& pick = options[rng() % options.size()];
            const char* key = type == "bid" ? "bid" : "card";
            std::cout << "{\"" << key << "\":\"" << pick << "\"}" << std::endl;
        }
    }
    return 0;
}
