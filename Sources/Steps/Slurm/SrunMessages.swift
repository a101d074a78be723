import WorkflowModel

/// What `srun` and `slurmstepd` say on the step's stderr, told apart from
/// what the program says, and what it means for the step:
/// a job the scheduler refused fails with kind `spawn` and Slurm's own
/// message, a job killed for its memory with kind `signal`, a task a
/// signal ended as on this machine.
/// See docs/language.md, 'Where process steps run: Slurm'.
enum SrunMessages {
    /// A line written by Slurm rather than by the program.
    static func isSlurmLine(_ line: Substring) -> Bool {
        line.hasPrefix("srun: ") || line.hasPrefix("slurmstepd")
    }

    /// `srun: jobid 1000592: nodes(1):...` (printed with `--verbose`).
    static func jobID(in line: Substring) -> String? {
        guard line.hasPrefix("srun: jobid ") else { return nil }
        let digits = line.dropFirst("srun: jobid ".count).prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : String(digits)
    }

    /// `srun --verbose` lines that are only progress; kept out of the
    /// console. Errors and warnings stay visible.
    static func isChatter(_ line: Substring) -> Bool {
        guard line.hasPrefix("srun: ") else { return false }
        // `srun: error: NODE: task 0: Exited with exit code 3` restates
        // the exit code (or the signal) the step reports anyway.
        if line.hasPrefix("srun: error: "), line.contains(": task ") { return true }
        return !line.hasPrefix("srun: error") && !line.hasPrefix("srun: fatal") && !line.hasPrefix("srun: warning")
            && !line.hasPrefix("srun: Exceeded") && !line.hasPrefix("srun: unrecognized")
    }

    /// Takes Slurm's lines out of `record`'s stderr, notes the job, and
    /// turns what Slurm reported into the step's outcome.
    static func adjust(_ record: inout ProcessRecord, job: String?) throws(StepFailure) {
        var program: [Substring] = []
        var slurm: [Substring] = []
        let text = record.standardError.text
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if isSlurmLine(line) { slurm.append(line) } else { program.append(line) }
        }
        // "a\nsrun: x\nb\n" splits into a, srun: x, b and "": joined again
        // without Slurm's lines, the final newline stays.
        record.standardError = CapturedText(text: program.joined(separator: "\n"), truncated: record.standardError.truncated)
        record.slurmJob = job ?? slurm.lazy.compactMap { jobID(in: $0) }.first
        var result = StepResult(
            stdout: record.standardOutput, stderr: record.standardError, exitCode: record.exitCode,
            terminatingSignal: record.signal, duration: record.duration)
        // Whatever went wrong, the job that was submitted is reported.
        result.slurmJob = record.slurmJob

        // Refused before it ran: srun's own error, no task.
        if let refusal = slurm.first(where: { $0.contains("Unable to allocate resources") })
            ?? slurm.first(where: { $0.hasPrefix("srun: unrecognized option") || $0.hasPrefix("srun: error: Invalid") })
            ?? slurm.first(where: { $0.hasPrefix("srun: error: invalid") })
        {
            throw StepFailure(.spawn, "Slurm refused the job: " + message(refusal), result: result)
        }
        if let missing = slurm.first(where: { $0.contains("error: execve(): ") }) {
            let what = missing.firstRange(of: "execve(): ").map { missing[$0.upperBound...] } ?? missing
            throw StepFailure(.spawn, "cannot start on the node: \(what)", result: result)
        }
        if let memory = slurm.first(where: { $0.contains("exceeded memory limit") || $0.contains("Exceeded job memory limit") }) {
            record.exitCode = nil
            record.signal = 9
            var killed = result
            killed.exitCode = nil
            killed.terminatingSignal = 9
            throw StepFailure(
                .signal, "killed by signal 9 (SIGKILL): the job exceeded its memory limit (\(message(memory)))",
                result: killed)
        }
        // srun's own failure (it could not read its configuration, reach
        // the controller, get a job or start the step): srun exited
        // non-zero and said `srun: fatal:`, or said `srun: error:` while no
        // task reported how it ended (`NODE: task 0: ...`). Told by what
        // srun is, not by a list of messages; never blamed on the command,
        // and never hidden.
        let own = slurm.filter(isSrunError)
        let taskEnded = slurm.contains { $0.contains(": task ") }
        if let exit = record.exitCode, exit != 0, !own.isEmpty,
            !taskEnded || own.contains(where: { $0.hasPrefix("srun: fatal") })
        {
            throw StepFailure(
                .spawn, "srun could not run the job (exit \(exit)): " + own.map(message).joined(separator: "; "),
                result: result)
        }
        // A task a signal ended: srun exits 128 + the signal and says which.
        if let exit = record.exitCode, exit > 128, exit < 128 + 65,
            slurm.contains(where: { $0.contains(": task 0: ") && !$0.contains("Exited with exit code") })
        {
            record.exitCode = nil
            record.signal = exit - 128
        }
    }

    /// srun's own error about itself: `srun: fatal: ...`, or `srun: error:
    /// ...` that is not a task's (`NODE: task 0: Exited ...`).
    static func isSrunError(_ line: Substring) -> Bool {
        line.hasPrefix("srun: fatal") || (line.hasPrefix("srun: error") && !line.contains(": task "))
    }

    /// The message without `srun: error: ` in front.
    private static func message(_ line: Substring) -> String {
        var text = line
        for prefix in ["srun: error: ", "srun: fatal: ", "srun: "] where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
            break
        }
        if let colon = text.firstRange(of: "error: "), text.hasPrefix("slurmstepd") { text = text[colon.upperBound...] }
        return String(text)
    }
}
