import Testing
import WorkflowModel

@testable import Steps

@Suite("Output tail and lines")
struct OutputBufferTests {
    private func append(_ text: String, to buffer: inout TailBuffer) {
        var text = text
        text.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
    }

    @Test func keepsEverythingUnderTheLimit() {
        var tail = TailBuffer(limit: 10)
        append("abc", to: &tail)
        append("def", to: &tail)
        #expect(tail.capturedText.text == "abcdef")
        #expect(!tail.capturedText.truncated)
        #expect(tail.capturedText.totalBytes == 6)
    }

    @Test func keepsTheLastBytesWhateverTheChunkSizes() {
        var tail = TailBuffer(limit: 10)
        var all = ""
        for index in 0..<200 {
            let piece = String(repeating: Character(String(index % 10)), count: index % 7 + 1)
            append(piece, to: &tail)
            all += piece
        }
        #expect(tail.capturedText.text == String(all.suffix(10)))
        #expect(tail.capturedText.truncated)
        #expect(tail.capturedText.totalBytes == all.utf8.count)
        append(String(repeating: "z", count: 25) + "0123456789", to: &tail)
        #expect(tail.capturedText.text == "0123456789")
    }

    @Test func aCutMultibyteCharacterAtTheStartIsDropped() {
        var tail = TailBuffer(limit: 5)
        append("ééé", to: &tail)  // 6 bytes: the first é is cut in half
        #expect(tail.capturedText.text == "éé")
    }

    @Test func aZeroLimitKeepsNothingButCounts() {
        var tail = TailBuffer(limit: 0)
        append("abc", to: &tail)
        #expect(tail.capturedText.text == "")
        #expect(tail.capturedText.totalBytes == 3)
        #expect(tail.capturedText.truncated)
    }

    private func lines(_ chunks: [String], maximum: Int = 100) -> [String] {
        var splitter = LineSplitter(maximumLineLength: maximum)
        var found: [String] = []
        for chunk in chunks {
            var chunk = chunk
            chunk.withUTF8 { splitter.append(UnsafeRawBufferPointer($0)) { found.append($0) } }
        }
        splitter.finish { found.append($0) }
        return found
    }

    @Test func linesAcrossChunks() {
        #expect(lines(["ab", "c\nde", "f\n\ng", "h"]) == ["abc", "def", "", "gh"])
        #expect(lines(["a\r\n", "b\r", "\n"]) == ["a", "b"])
        #expect(lines(["no newline"]) == ["no newline"])
        #expect(lines([]) == [])
    }

    @Test func aLineWithoutEndIsPassedOnInPieces() {
        #expect(lines([String(repeating: "x", count: 25)], maximum: 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
    }
}
