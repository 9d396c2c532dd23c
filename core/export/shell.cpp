#include "export/shell.h"

namespace headroom {

namespace {

bool isPlainShellChar(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
    case '_':
    case '@':
    case '%':
    case '+':
    case '=':
    case ':':
    case ',':
    case '.':
    case '/':
    case '-':
        return true;
    default:
        return false;
    }
}

} // namespace

std::string shellQuote(std::string_view word) {
    bool plain = !word.empty();
    for (char c : word)
        if (!isPlainShellChar(c)) {
            plain = false;
            break;
        }
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''"; // close, an escaped quote, reopen: the only way inside '…'
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string shellJoin(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += ' ';
        out += shellQuote(w);
    }
    return out;
}

Result<std::vector<std::string>> shellSplit(std::string_view text) {
    std::vector<std::string> words;
    std::string cur;
    bool inWord = false; // a word has started (even an empty '' one)
    size_t i = 0;
    const size_t n = text.size();
    auto endWord = [&] {
        if (inWord) words.push_back(cur);
        cur.clear();
        inWord = false;
    };
    while (i < n) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            endWord();
            ++i;
        } else if (c == '#' && !inWord) {
            while (i < n && text[i] != '\n')
                ++i; // a comment runs to the end of the line
        } else if (c == '\\') {
            if (i + 1 >= n)
                return makeError(ErrorCode::ParseError, "command line ends in a lone backslash",
                                 "offset " + std::to_string(i));
            if (text[i + 1] == '\n') { // line continuation: vanishes
                i += 2;
                continue;
            }
            cur += text[i + 1];
            inWord = true;
            i += 2;
        } else if (c == '\'') {
            const size_t close = text.find('\'', i + 1);
            if (close == std::string_view::npos)
                return makeError(ErrorCode::ParseError, "unterminated single quote in command line",
                                 "opened at offset " + std::to_string(i));
            cur.append(text.substr(i + 1, close - i - 1));
            inWord = true;
            i = close + 1;
        } else if (c == '"') {
            const size_t open = i++;
            bool closed = false;
            while (i < n) {
                const char d = text[i];
                if (d == '"') {
                    closed = true;
                    ++i;
                    break;
                }
                if (d == '\\' && i + 1 < n) {
                    const char e = text[i + 1];
                    if (e == '\n') {
                        i += 2;
                        continue;
                    }
                    if (e == '"' || e == '\\' || e == '$' || e == '`') {
                        cur += e;
                        i += 2;
                        continue;
                    }
                }
                cur += d;
                ++i;
            }
            if (!closed)
                return makeError(ErrorCode::ParseError, "unterminated double quote in command line",
                                 "opened at offset " + std::to_string(open));
            inWord = true;
        } else {
            cur += c;
            inWord = true;
            ++i;
        }
    }
    endWord();
    return words;
}

} // namespace headroom
