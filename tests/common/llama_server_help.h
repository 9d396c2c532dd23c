// The `llama-server --help` fixtures of each llama.cpp build (tests/fixtures/llama-server-help/),
// read into the set of option spellings they list. Tests that use it define
// HEADROOM_TEST_FIXTURES (tests/CMakeLists.txt).
#pragma once

#include "launch/llama_version.h"

#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace headroom::test {

inline std::string llamaServerHelpPath(LlamaVersion v) {
    return std::string(HEADROOM_TEST_FIXTURES) + "/llama-server-help/" + llamaVersionName(v) +
           ".txt";
}

// The flags `llama-server --help` lists: a line that starts with '-' names one option, its
// spellings separated by ", " and followed by the value placeholder and the description
// ("-fitt, --fit-target MiB0,MiB1,...", "--mmproj-auto, --no-mmproj, --no-mmproj-auto").
inline std::set<std::string> llamaServerHelpFlags(LlamaVersion v) {
    std::ifstream in(llamaServerHelpPath(v));
    if (!in) qFatal("missing fixture %s", llamaServerHelpPath(v).c_str());
    std::set<std::string> flags;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] != '-') continue;
        std::istringstream words(line);
        std::string w;
        // "----- common params -----" heads a section; it is no option.
        while (words >> w && w.size() > 1 && w[0] == '-' &&
               w.find_first_not_of('-') != std::string::npos) {
            const bool more = w.back() == ',';
            if (more) w.pop_back();
            flags.insert(w);
            if (!more) break;
        }
    }
    return flags;
}

} // namespace headroom::test
