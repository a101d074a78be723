import Glibc

/// The terminal's width, to keep live lines from wrapping.
enum TerminalSize {
    static func columns() -> Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// `text` cut to `width` visible characters (escape sequences kept).
    static func truncate(_ text: String, to width: Int) -> String {
        var visible = 0
        var result = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            guard visible < width else { continue }
            result.append(character)
            visible += 1
        }
        return result
    }
}
