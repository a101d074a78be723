import Foundation
import Testing

/// The HTML report in a real browser: Debian's Chromium, headless (CI
/// installs it through .ci/install-deps; on a machine without it these
/// tests say so and pass, unless PROMISE_RUN_REQUIRE_TOOLS=1, which
/// .ci/run sets).
@Suite("End to end: the HTML report in Chromium")
struct HTMLReportBrowserTests {
    static let workflow = """
        workflow "browser"
        build: sh "echo compiled"
        items: foreach n in range(1, 5) parallel {
          item: sh "echo item {{n}}"
        }
        checks: parallel keep-going {
          unit: sh "echo 'assertion failed: 1 != 2' >&2; exit 1"
          lint: sh "echo linted"
          slow: sequence {
            timeout 300ms
            wait: sh "sleep 30"
          }
        }
        catch {
          note: log "failed: {{error.step}}"
        }
        """

    /// Chromium's path, or nil (with the test then passing, saying why)
    /// when it is not installed and not required.
    static func chromium() throws -> String? {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let required = ProcessInfo.processInfo.environment["PROMISE_RUN_REQUIRE_TOOLS"] == "1"
        try #require(!required, "Chromium is required (PROMISE_RUN_REQUIRE_TOOLS=1) but not installed: run .ci/install-deps")
        return nil
    }

    /// The page after its script ran, as Chromium serializes it, with the
    /// console's messages; the page's own script blocks are cut out, so
    /// counts see only what the script made.
    static func load(
        _ browser: String, _ page: String, hash: String = "", screenshot: String? = nil,
        in space: Workspace
    ) async throws -> (dom: String, console: [String]) {
        let profile = space.path("chromium-profile-\(UUID().uuidString)")
        var arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile)",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--window-size=1200,900",
        ]
        if let screenshot { arguments.append("--screenshot=\(screenshot)") } else { arguments.append("--dump-dom") }
        arguments.append("file://\(page)\(hash)")
        let outcome = try await Binary.runCommandOffPool(browser, arguments)
        let console = outcome.stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") }
        var dom = outcome.stdout
        while let open = dom.range(of: "<script"), let close = dom.range(of: "</script>", range: open.upperBound..<dom.endIndex) {
            dom.removeSubrange(open.lowerBound..<close.upperBound)
        }
        return (dom, console)
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test("loads with no console errors; a lane per group, a row and a bar per step; failures first with their stderr tail; a screenshot")
    func page() async throws {
        guard let browser = try Self.chromium() else { return }
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(Self.workflow, ["--report", "html=report.html"])
        #expect(run.status == 0, "the catch handles the failures: \(run.stdout)")
        let groups = try #require(run.report?["groups"] as? [[String: Any]])
        let steps = run.steps
        let (dom, console) = try await Self.load(browser, space.path("report.html"), in: space)
        #expect(console.isEmpty, "console: \(console)")
        #expect(dom.contains("data-ready=\"true\""), "the script ran to its end")
        #expect(!dom.contains("data-errors"))

        #expect(Self.count("<details class=\"lane\"", in: dom) == groups.count)
        for group in groups {
            let id = try #require(group["id"] as? String)
            #expect(dom.contains("data-group=\"\(id)\""), "a lane for \(id)")
        }
        #expect(Self.count("<details class=\"step\"", in: dom) == steps.count)
        let started = steps.filter { !($0["startedAt"] is NSNull) }.count + groups.filter { !($0["startedAt"] is NSNull) }.count
        #expect(Self.count("<i class=\"bar", in: dom) == started, "a bar for every step and group that started")
        #expect(dom.contains("data-group=\"items\" data-kind=\"foreach\""))
        #expect(!dom.contains("data-kind=\"foreach\" data-status=\"succeeded\" style=\"--depth:0\" open"), "foreach lanes start folded")

        // Failures come first, above the timeline, each with its message and stderr.
        let failures = try #require(dom.range(of: "id=\"failures\""))
        let timeline = try #require(dom.range(of: "id=\"timeline\""))
        #expect(failures.lowerBound < timeline.lowerBound)
        let unitRow = try #require(dom.range(of: "data-step=\"unit\""))
        let unitEnd = try #require(dom.range(of: "</details>", range: unitRow.upperBound..<dom.endIndex))
        let unitDetails = String(dom[unitRow.lowerBound..<unitEnd.lowerBound])
        #expect(unitDetails.contains("assertion failed: 1 != 2"), "the failed step's details hold its stderr tail")
        #expect(dom.contains("data-failure=\"slow\""), "the timed-out group is among the failures")
        // The catch handled them: the page says so, in the failures list
        // and in the step's details.
        #expect(dom.contains("handled by catch at line 14: not a failure of the run"), "the page marks handled failures")
        // Every failure here was handled: none counts as the run's own.
        #expect(!dom.contains("<h2>Failures ("), "handled failures counted as failures")
        #expect(dom.contains("<h2>Handled failures ("), "the handled ones have their own heading")
        #expect(unitDetails.contains("failed (handled by catch at line 14: not a failure of the run)"), "\(unitDetails)")

        let shot = space.path("report.png")
        _ = try await Self.load(browser, space.path("report.html"), screenshot: shot, in: space)
        let png = try #require(FileManager.default.contents(atPath: shot))
        #expect(png.count > 1000 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot")
    }

    @Test("the status filter and the label search hide what does not match, from the page's address")
    func filterAndSearch() async throws {
        guard let browser = try Self.chromium() else { return }
        let space = try Workspace()
        defer { space.remove() }
        _ = try await space.run(Self.workflow, ["--report", "html=report.html"])
        let failed = try await Self.load(browser, space.path("report.html"), hash: "#status=failed", in: space)
        #expect(failed.console.isEmpty, "console: \(failed.console)")
        #expect(failed.dom.contains("data-step=\"unit\" data-status=\"failed\""))
        #expect(!failed.dom.contains("data-step=\"unit\" data-status=\"failed\" data-index=\"6\" style=\"--depth:1\" hidden"))
        #expect(
            failed.dom.contains("data-step=\"build\" data-status=\"succeeded\" data-index=\"0\" style=\"--depth:0\" hidden"),
            "succeeded steps are hidden")
        #expect(failed.dom.contains("data-filter=\"failed\" checked") || failed.dom.contains("data-filter=\"failed\""))

        let searched = try await Self.load(browser, space.path("report.html"), hash: "#q=item%5B3%5D", in: space)
        let hiddenRows = Self.count("\" hidden", in: searched.dom)
        #expect(hiddenRows > 0)
        let item3 = try #require(searched.dom.range(of: "data-step=\"item[3]\""))
        let item3Tag = String(searched.dom[item3.lowerBound...].prefix { $0 != ">" })
        #expect(!item3Tag.contains("hidden"), "the match stays visible")
        let build = try #require(searched.dom.range(of: "data-step=\"build\""))
        #expect(String(searched.dom[build.lowerBound...].prefix { $0 != ">" }).contains("hidden"))
        #expect(
            searched.dom.contains("data-group=\"items\" data-kind=\"foreach\" data-status=\"succeeded\" style=\"--depth:0\" open"),
            "the folded foreach opens to show the match")
    }

    @Test("10,000 steps: a page under 5 MB that Chromium loads without errors (load time printed: Benchmarks/README.md)")
    func tenThousandSteps() async throws {
        guard let browser = try Self.chromium() else { return }
        let space = try Workspace()
        defer { space.remove() }
        let run = try await space.run(
            """
            workflow "many"
            items: foreach n in range(1, 10000) parallel limit 64 {
              expect rate >= 1/s
              log "item {{n}}"
            }
            """, ["-q", "--report", "html=report.html"])
        #expect(run.status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: space.path("report.html"))[.size] as? Int ?? 0
        #expect(size > 0 && size < 5_000_000, "\(size) bytes")
        let (dom, console) = try await Self.load(browser, space.path("report.html"), in: space)
        #expect(console.isEmpty, "console: \(console.prefix(3))")
        // A label keeps the records of its first 1,000 runs and counts the
        // rest; the page says so.
        #expect(Self.count("<details class=\"step\"", in: dom) == 1_000)
        // Its statistics, with the latencies drawn.
        let stats = try #require(dom.range(of: "<table class=\"stats\""))
        #expect(dom[stats.lowerBound...].contains("<td>log@4:3</td><td>10000</td><td>10000</td><td>0</td>"), "the label's row")
        #expect(dom.contains("<svg class=\"distribution\""))
        #expect(Self.count("<rect ", in: dom) >= 1)
        // Its threshold, with what was measured.
        #expect(dom.contains("<tr class=\"held\"><td>items</td><td>rate &gt;= 1/s</td><td>✓ held</td><td>the rate was "), "the threshold's row")
        #expect(dom.contains("10000 steps · 10000 succeeded · 9000 runs of labels past their first 1,000 counted, not listed"))
        let loadMilliseconds = dom.firstMatch(of: /data-load-ms="(\d+)"/).map { String($0.1) } ?? "?"
        print("html report, 10,000 steps: \(size) bytes, load event after \(loadMilliseconds) ms")
    }
}
