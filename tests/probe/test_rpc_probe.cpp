// The RPC probe against an in-process peer that speaks ggml's RPC framing (ggml-rpc.cpp:
// | cmd u8 | size u64 | payload | out, | size u64 | payload | back), well and badly: the
// probe reads what a v0.5.0 rpc-server reports and refuses every other answer with a message
// that names the server and the step, within its deadline.
#include "rpc_probe.h"

#include <QtTest>

#include <arpa/inet.h>
#include <atomic>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace headroom;
using namespace headroom::probe;

namespace {

// How the fake peer behaves after accepting one client.
enum class Peer {
    Good,          // protocol 7.0.0, two devices
    OldMajor,      // answers HELLO as protocol 6.1.0
    NewerMinor,    // 7.3.0: newer than the client knows
    DropsHello,    // an older server: closes on a HELLO of another size
    Silent,        // accepts and never answers
    HugeCount,     // claims 100000 devices
    FreeAboveTotal // device memory free > total
};

class FakeRpcServer {
public:
    explicit FakeRpcServer(Peer mode) : mode_(mode) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0; // any free port
        ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(fd_, 1);
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~FakeRpcServer() {
        stop_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        thread_.join();
    }
    RpcEndpoint endpoint() const { return {"127.0.0.1", port_}; }
    int commandsSeen() const { return commands_; }

private:
    static bool readAll(int fd, void* p, size_t n) {
        auto* b = static_cast<char*>(p);
        while (n > 0) {
            const ssize_t r = ::recv(fd, b, n, 0);
            if (r <= 0) return false;
            b += r;
            n -= static_cast<size_t>(r);
        }
        return true;
    }
    static void reply(int fd, const void* p, std::uint64_t n) {
        ::send(fd, &n, sizeof n, MSG_NOSIGNAL);
        ::send(fd, p, n, MSG_NOSIGNAL);
    }
    void serve() {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        for (;;) {
            std::uint8_t cmd = 0;
            std::uint64_t size = 0;
            if (!readAll(c, &cmd, 1) || !readAll(c, &size, sizeof size)) break;
            if (size > 1024) break;
            char payload[1024];
            if (!readAll(c, payload, size)) break;
            ++commands_;
            if (mode_ == Peer::Silent) {
                while (!stop_)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                break;
            }
            if (cmd == kRpcCmdHello) {
                if (mode_ == Peer::DropsHello) break;
                std::uint8_t rsp[28] = {7, 0, 0, 0};
                if (mode_ == Peer::OldMajor) rsp[0] = 6, rsp[1] = 1;
                if (mode_ == Peer::NewerMinor) rsp[1] = 3;
                reply(c, rsp, sizeof rsp);
            } else if (cmd == kRpcCmdDeviceCount) {
                const std::uint32_t n = mode_ == Peer::HugeCount ? 100000 : 2;
                reply(c, &n, sizeof n);
            } else if (cmd == kRpcCmdGetDeviceMemory) {
                std::uint32_t dev = 0;
                std::memcpy(&dev, payload, sizeof dev);
                // Device d: total (d + 1) x 8 GiB, free half of it.
                std::uint64_t mem[2] = {(dev + 1) * 4 * GiB, (dev + 1) * 8 * GiB};
                if (mode_ == Peer::FreeAboveTotal) mem[0] = mem[1] + 1;
                reply(c, mem, sizeof mem);
            } else {
                break;
            }
        }
        ::close(c);
    }

    Peer mode_;
    int fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> commands_{0};
    std::thread thread_;
};

} // namespace

class TestRpcProbe : public QObject {
    Q_OBJECT

private slots:
    void aCurrentServerReportsItsProtocolAndEveryDevicesMemory() {
        FakeRpcServer server(Peer::Good);
        const auto info = probeRpcServer(server.endpoint());
        QVERIFY2(info.has_value(), info ? "" : info.error().message.c_str());
        QCOMPARE(int(info->proto_major), 7);
        QCOMPARE(info->devices.size(), size_t{2});
        // Device 1: total (1 + 1) x 8 GiB = 16 GiB, free 8 GiB.
        QCOMPARE(info->devices[1].index, 1u);
        QCOMPARE(info->devices[1].total_bytes, 16 * GiB);
        QCOMPARE(info->devices[1].free_bytes, 8 * GiB);
        // HELLO, DEVICE_COUNT and one GET_DEVICE_MEMORY per device: 4 commands.
        QCOMPARE(server.commandsSeen(), 4);
    }

    void aServerOfAnotherProtocolIsRefusedNamingBothVersions_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("says");
        QTest::newRow("older major") << int(Peer::OldMajor) << "speaks RPC protocol 6.1.0";
        QTest::newRow("newer minor") << int(Peer::NewerMinor) << "speaks RPC protocol 7.3.0";
        QTest::newRow("drops a HELLO of another size")
            << int(Peer::DropsHello) << "closed the connection during HELLO";
        QTest::newRow("implausible device count") << int(Peer::HugeCount) << "100000 devices";
        QTest::newRow("free above total")
            << int(Peer::FreeAboveTotal) << "reports implausible memory";
    }
    void aServerOfAnotherProtocolIsRefusedNamingBothVersions() {
        QFETCH(int, mode);
        QFETCH(QString, says);
        FakeRpcServer server(static_cast<Peer>(mode));
        const auto info = probeRpcServer(server.endpoint());
        QVERIFY(!info);
        QCOMPARE(info.error().code, ErrorCode::ProbeFailed);
        const QString msg = QString::fromStdString(info.error().message);
        QVERIFY2(msg.contains(says), qPrintable(msg));
        QVERIFY2(msg.contains(QString::fromStdString(server.endpoint().text())), qPrintable(msg));
    }

    void aSilentPeerCostsTheDeadlineNotTheCommand() {
        FakeRpcServer server(Peer::Silent);
        QElapsedTimer t;
        t.start();
        const auto info =
            probeRpcServer(server.endpoint(), kRpcProtocolV050, std::chrono::milliseconds(300));
        QVERIFY(!info);
        QVERIFY(QString::fromStdString(info.error().message).contains("did not answer HELLO"));
        // Not a timing assertion on speed: only that the probe gave up rather than hanging
        // (the test's own 600 s ctest limit would catch a hang; 10 s is a generous bound).
        QVERIFY(t.elapsed() < 10000);
    }

    void aServerIsCheckedAgainstTheProtocolOfTheBuildPlannedFor() {
        // The same 6.1.0 peer: refused for v0.5.0 (protocol 7), but for v0.4.0 (protocol 6.0) its
        // minor 1 is newer than 0, which llama.cpp's negotiate_hello refuses too.
        FakeRpcServer a(Peer::OldMajor);
        const auto for050 = probeRpcServer(a.endpoint(), kRpcProtocolV050);
        QVERIFY(!for050);
        QVERIFY(QString::fromStdString(for050.error().message).contains("v0.5.0"));
        FakeRpcServer b(Peer::OldMajor);
        const auto for040 = probeRpcServer(b.endpoint(), kRpcProtocolV040);
        QVERIFY(!for040);
        QVERIFY(QString::fromStdString(for040.error().message).contains("6.1.0"));
        // A 7.0.0 peer is refused when planning for v0.4.0.
        FakeRpcServer c(Peer::Good);
        QVERIFY(!probeRpcServer(c.endpoint(), kRpcProtocolV040));
    }

    void aClosedPortIsUnreachable() {
        // Bind a port and close it again: nothing listens there now.
        std::uint16_t port = 0;
        {
            FakeRpcServer server(Peer::Good);
            port = server.endpoint().port;
            // connect once so the server thread's accept returns and the destructor joins
            (void)probeRpcServer(server.endpoint());
        }
        const auto info = probeRpcServer({"127.0.0.1", port});
        QVERIFY(!info);
        QVERIFY(QString::fromStdString(info.error().message).contains("not reachable"));
    }

    void endpointsAreParsedAsLlamaServerTakesThem_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::newRow("ipv4") << "10.0.0.7:50052"
                              << "10.0.0.7" << 50052;
        QTest::newRow("name") << "node2:1"
                              << "node2" << 1;
        QTest::newRow("ipv6") << "[::1]:65535"
                              << "::1" << 65535;
    }
    void endpointsAreParsedAsLlamaServerTakesThem() {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(int, port);
        const auto ep = parseRpcEndpoint(text.toStdString());
        QVERIFY(ep.has_value());
        QCOMPARE(QString::fromStdString(ep->host), host);
        QCOMPARE(int(ep->port), port);
    }

    void malformedEndpointsAreRefusedNamingTheText_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("no port") << "10.0.0.7";
        QTest::newRow("port 0") << "10.0.0.7:0";
        QTest::newRow("port too large") << "10.0.0.7:65536";
        QTest::newRow("port not a number") << "10.0.0.7:abc";
        QTest::newRow("bare ipv6") << "::1:50052";
        QTest::newRow("no host") << ":50052";
        QTest::newRow("space in host") << "a b:1";
    }
    void malformedEndpointsAreRefusedNamingTheText() {
        QFETCH(QString, text);
        const auto ep = parseRpcEndpoint(text.toStdString());
        QVERIFY(!ep);
        QCOMPARE(ep.error().code, ErrorCode::InvalidArgument);
        QVERIFY(QString::fromStdString(ep.error().message).contains("'" + text + "'"));
    }

    void aListWithAnEmptyEntryIsRefused() {
        QVERIFY(parseRpcEndpoints("127.0.0.1:50052,127.0.0.1:50053").has_value());
        QCOMPARE(parseRpcEndpoints("127.0.0.1:50052,127.0.0.1:50053")->size(), size_t{2});
        QVERIFY(!parseRpcEndpoints("127.0.0.1:50052,"));
        QVERIFY(!parseRpcEndpoints(",127.0.0.1:50052"));
    }

    void aRepeatedEndpointIsRefusedNamingIt() {
        auto twice = parseRpcEndpoints("127.0.0.1:50052,127.0.0.1:50053,127.0.0.1:50052");
        QVERIFY(!twice);
        QCOMPARE(twice.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(twice.error().message.find("127.0.0.1:50052 twice") != std::string::npos,
                 twice.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestRpcProbe)
#include "test_rpc_probe.moc"
