import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PromiseEngine

/// What a URLSession error means for a step: cancellation (not a failure),
/// kind `timeout` for URLSession's idle timeout, kind `network` for the
/// rest, with words instead of `NSURLErrorDomain error -1004`.
enum HTTPErrors {
    enum Meaning {
        case cancelled
        case failure(StepFailure)
    }

    static func meaning(of error: any Error, request: String, result: StepResult) -> Meaning {
        let code = (error as? URLError)?.code.rawValue ?? (error as NSError).code
        if code == URLError.cancelled.rawValue { return .cancelled }
        if code == URLError.timedOut.rawValue {
            return .failure(StepFailure(.timeout, "\(request): no data from the server within the idle timeout", result: result))
        }
        return .failure(StepFailure(.network, "\(request): \(describe(code))\(detail(of: error)) (URLError \(code))",
                                    result: result))
    }

    /// libcurl's own words, which FoundationNetworking passes on as the
    /// description (`SSL certificate problem: self-signed certificate`),
    /// unless it is Foundation's generic text.
    private static func detail(of error: any Error) -> String {
        let text = (error as NSError).localizedDescription
        if text.isEmpty || text.hasPrefix("The operation could not be completed") { return "" }
        return ": " + text
    }

    static func describe(_ code: Int) -> String {
        switch code {
        case URLError.cannotConnectToHost.rawValue: return "could not connect to the server (connection refused)"
        case URLError.cannotFindHost.rawValue: return "could not find the host (DNS)"
        case URLError.dnsLookupFailed.rawValue: return "DNS lookup failed"
        case URLError.networkConnectionLost.rawValue: return "the connection was lost (reset by the server)"
        case URLError.notConnectedToInternet.rawValue: return "not connected to a network"
        case URLError.badServerResponse.rawValue: return "the server's response was not valid HTTP"
        case URLError.badURL.rawValue, URLError.unsupportedURL.rawValue: return "the URL is not valid"
        case URLError.httpTooManyRedirects.rawValue: return "too many redirects"
        case URLError.secureConnectionFailed.rawValue: return "the TLS connection failed"
        case URLError.serverCertificateUntrusted.rawValue, URLError.serverCertificateHasBadDate.rawValue,
             URLError.serverCertificateNotYetValid.rawValue, URLError.serverCertificateHasUnknownRoot.rawValue:
            return "the server's TLS certificate is not trusted"
        case URLError.resourceUnavailable.rawValue: return "the resource is unavailable"
        case URLError.zeroByteResource.rawValue: return "the server sent nothing"
        case URLError.cannotDecodeContentData.rawValue, URLError.cannotDecodeRawData.rawValue:
            return "the response body could not be decoded"
        case URLError.cannotParseResponse.rawValue: return "the response could not be parsed"
        default: return "the request failed"
        }
    }
}
