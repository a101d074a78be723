import CSystemShims
import RunnerSystem

/// Undoes a response's `Content-Encoding` (gzip, deflate, br, zstd) as
/// the body streams in, with the libraries libcurl itself links, loaded at
/// first use. A body that decodes to more than `ratioLimit` times the
/// bytes that came so far is refused: a small download must not become
/// gigabytes in memory or on disk (a decompression bomb).
final class ContentDecoder {
    private let decoder: OpaquePointer
    private var output = [UInt8](repeating: 0, count: 64 * 1024)
    let name: String
    /// Bytes that came (encoded) and bytes they decoded to, so far.
    private var received = 0, decoded = 0

    /// The most bytes a body may decode to for each byte of it that came.
    static let ratioLimit = 1000

    /// The `Accept-Encoding` value: what can be decoded here.
    static let acceptEncoding: String = {
        var names = ["gzip", "deflate"].filter { _ in csh_decoder_available(Int32(CSH_DECODE_GZIP)) != 0 }
        if csh_decoder_available(Int32(CSH_DECODE_BROTLI)) != 0 { names.append("br") }
        if csh_decoder_available(Int32(CSH_DECODE_ZSTD)) != 0 { names.append("zstd") }
        return names.joined(separator: ", ")
    }()

    /// A decoder for the `Content-Encoding` value; nil for `identity` or
    /// none. Throws the reason for a coding it cannot undo.
    static func make(for contentEncoding: String?) throws(DecodeError) -> ContentDecoder? {
        guard let contentEncoding else { return nil }
        let codings = contentEncoding.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count == 1, let coding = codings.first else {
            throw DecodeError(message: "the body has several content codings (\(contentEncoding)); one is supported")
        }
        let kind: Int32
        switch coding {
        case "gzip", "x-gzip": kind = Int32(CSH_DECODE_GZIP)
        case "deflate": kind = Int32(CSH_DECODE_DEFLATE)
        case "br": kind = Int32(CSH_DECODE_BROTLI)
        case "zstd": kind = Int32(CSH_DECODE_ZSTD)
        default: throw DecodeError(message: "the body's content coding '\(coding)' is not supported")
        }
        var message = [CChar](repeating: 0, count: 256)
        guard let decoder = csh_decoder_new(kind, &message, message.count) else {
            throw DecodeError(message: "cannot decode '\(coding)': " + cText(message))
        }
        return ContentDecoder(decoder, name: coding)
    }

    private init(_ decoder: OpaquePointer, name: String) {
        self.decoder = decoder
        self.name = name
    }

    deinit {
        csh_decoder_free(decoder)
    }

    /// Decodes `input`, handing each decoded piece to `deliver` (which
    /// returns false to stop).
    func decode(_ input: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) -> Bool) throws(DecodeError) {
        var offset = 0
        var message = [CChar](repeating: 0, count: 256)
        received += input.count
        while true {
            var consumed = 0
            var produced = 0
            let base = input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
            let code = output.withUnsafeMutableBufferPointer { out in
                csh_decoder_run(
                    decoder, base, input.count - offset, &consumed, out.baseAddress, out.count, &produced,
                    &message, message.count)
            }
            if code < 0 {
                throw DecodeError(message: "the \(name) body is corrupt: " + cText(message))
            }
            offset += consumed
            decoded += produced
            if decoded > Self.ratioLimit * received {
                throw DecodeError(
                    message: "the \(name) body decodes to more than \(Self.ratioLimit) times its size as it came "
                        + "(\(decoded) bytes from \(received), \(decoded / max(received, 1)) to 1); at most "
                        + "\(Self.ratioLimit) to 1 is taken, a larger ratio is a decompression bomb")
            }
            if produced > 0 {
                let keepGoing = output.withUnsafeBytes { deliver(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
                if !keepGoing { return }
            }
            if offset >= input.count && produced < output.count { return }
            if consumed == 0 && produced == 0 { return }
        }
    }

    struct DecodeError: Error {
        var message: String
    }
}
