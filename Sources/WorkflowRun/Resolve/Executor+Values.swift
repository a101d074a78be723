import PromiseEngine
import RunnerSystem
import WorkflowModel

extension WorkflowExecutor {
    /// The items of a foreach list.
    func evaluate(_ list: ListSource, in values: ValueScope, id: String) throws(RunError) -> [String] {
        func text(_ template: Template) throws(RunError) -> String {
            try interpolator.render(template, in: values, stepID: id)
        }
        switch list {
        case .items(let templates):
            var items: [String] = []
            for template in templates { items.append(try text(template)) }
            return items
        case .lines(let path):
            let file = Paths.absolute(try text(path), from: directory)
            switch FileSystem.readText(file) {
            // A UTF-8 byte order mark (a list saved by Notepad) is not part
            // of its first line, as it is not of a workflow's (the lexer).
            case .success(let content): return Self.nonEmptyLines(String(Dotenv.withoutByteOrderMark(content)))
            case .failure(let error):
                throw RunError(stepID: id, kind: .file, message: "lines(\"\(error.path)\"): \(error.reason)")
            }
        case .split(let template):
            return Self.nonEmptyLines(try text(template))
        case .glob(let pattern):
            return FileSystem.glob(try text(pattern), base: directory)
        case .range(let from, let to):
            let low = try text(from)
            let high = try text(to)
            guard let start = Int(low.trimmingSpaces), let end = Int(high.trimmingSpaces) else {
                throw RunError(stepID: id, kind: .reference, message: "range(\(low), \(high)): the bounds must be integers")
            }
            return start <= end ? (start...end).map(String.init) : []
        }
    }

    /// The group with its load shape's templates resolved, once,
    /// as it starts: a value that is not a count, a duration or a rate
    /// fails the group before any iteration starts.
    func resolvingShape(of foreach: ForeachGroup, in values: ValueScope, id: String) throws(RunError) -> ForeachGroup {
        guard let shape = foreach.shape else { return foreach }
        var resolved = foreach
        resolved.shape = nil
        func value(_ template: Template) throws(RunError) -> String {
            try interpolator.render(template, in: values, stepID: id).trimmingSpaces
        }
        func refuse(_ template: Template, _ text: String, _ wanted: String) -> RunError {
            RunError(
                stepID: id, kind: .reference,
                message: "'\(template.sourceText)' is '\(text)', not \(wanted); "
                    + "no iteration started")
        }
        if let template = shape.count {
            let text = try value(template)
            guard let count = Int(text), (1...100_000_000).contains(count) else {
                throw refuse(template, text, "a count from 1 to 100000000 (repeat N)")
            }
            resolved.repetition = .count(count)
            resolved.list = .range(.literal("0"), .literal(String(count - 1)))
        }
        if let template = shape.duration {
            let text = try value(template)
            guard let duration = DurationText.parse(text), duration > .zero else {
                throw refuse(template, text, "a duration above zero (repeat for 30s)")
            }
            resolved.repetition = .duration(duration)
        }
        if let template = shape.limit {
            let text = try value(template)
            guard let limit = Int(text), (1...1_000_000).contains(limit) else {
                throw refuse(template, text, "a limit from 1 to 1000000")
            }
            resolved.limit = limit
        }
        if let template = shape.rate {
            let text = try value(template)
            guard let rate = RateText.parse(text) else { throw refuse(template, text, "a rate (500/s, 30/m, 2/h)") }
            if let problem = RateText.problem(rate) {
                throw RunError(
                    stepID: id, kind: .reference,
                    message: "'\(template.sourceText)' is '\(text)': \(problem); no iteration started")
            }
            resolved.rate = rate
        }
        return resolved
    }

    /// The iterations of a foreach or a repeat: a range's numbers are made
    /// as iterations start.
    func iterations(of foreach: ForeachGroup, in values: ValueScope, id: String) throws(RunError) -> Iterations {
        switch (foreach.repetition, foreach.list) {
        case (.duration(let duration), _):
            if let ramp = foreach.ramp { return .numbers(first: 0, count: ramp.iterations(within: duration)) }
            guard let rate = foreach.rate else { return .open }
            return .numbers(first: 0, count: Iterations.due(within: duration, rate: rate))
        case (_, .range(let from, let to)):
            let low = try interpolator.render(from, in: values, stepID: id)
            let high = try interpolator.render(to, in: values, stepID: id)
            guard let start = Int(low.trimmingSpaces), let end = Int(high.trimmingSpaces) else {
                throw RunError(stepID: id, kind: .reference, message: "range(\(low), \(high)): the bounds must be integers")
            }
            guard start <= end else { return .numbers(first: start, count: 0) }
            let (span, overflow) = end.subtractingReportingOverflow(start)
            guard !overflow, span < Int.max else {
                throw RunError(stepID: id, kind: .reference, message: "range(\(low), \(high)) has too many numbers")
            }
            return .numbers(first: start, count: span + 1)
        default:
            return .list(try evaluate(foreach.list, in: values, id: id))
        }
    }

    /// Whether an `if` condition holds.
    func evaluate(_ condition: Condition, in values: ValueScope, id: String) throws(RunError) -> Bool {
        switch condition {
        case .equal(let left, let right):
            return try interpolator.render(left, in: values, stepID: id) == interpolator.render(right, in: values, stepID: id)
        case .notEqual(let left, let right):
            return try interpolator.render(left, in: values, stepID: id) != interpolator.render(right, in: values, stepID: id)
        case .exists(let path):
            return FileSystem.exists(Paths.absolute(try interpolator.render(path, in: values, stepID: id), from: directory))
        case .not(let inner):
            return !(try evaluate(inner, in: values, id: id))
        }
    }

    /// The lines of `text` (LF or CR LF) that hold more than spaces.
    static func nonEmptyLines(_ text: String) -> [String] {
        var text = text
        // Over the bytes in place: a list of 100,000 URLs is read once per
        // run, and each line costs a scan and one copy.
        return text.withUTF8 { bytes in
            var lines: [String] = []
            var start = 0
            func take(_ end: Int) {
                var end = end
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                // Blank (only what `trim` removes: space, tab, CR, VT, FF): skipped.
                var blank = true
                for index in start..<end {
                    let byte = bytes[index]
                    if byte != 0x20, byte != 0x09, byte != 0x0D, byte != 0x0B, byte != 0x0C {
                        blank = false
                        break
                    }
                }
                guard !blank else { return }
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
            }
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
                take(index)
                start = index + 1
            }
            if start < bytes.count { take(bytes.count) }
            return lines
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String { Filter.trim.apply(to: String(self)) }
}
