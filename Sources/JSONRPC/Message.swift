package import JSON

/// A JSON-RPC 2.0 request id: a number or a string.
package enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case number(Int)
    case string(String)

    package var json: JSONValue {
        switch self {
        case .number(let value): return .integer(value)
        case .string(let value): return .string(value)
        }
    }

    package var description: String {
        switch self {
        case .number(let value): return String(value)
        case .string(let value): return value
        }
    }
}

/// A JSON-RPC error object.
package struct ResponseError: Error, Equatable, Sendable {
    package var code: Int
    package var message: String

    package init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    package static let parseError = -32700
    package static let invalidRequest = -32600
    package static let methodNotFound = -32601
    package static let invalidParams = -32602
    package static let internalError = -32603
    /// LSP: a request before `initialize`.
    package static let serverNotInitialized = -32002
    /// LSP: a request the server could not carry out (a refused rename).
    package static let requestFailed = -32803

    package static func invalidParams(_ message: String) -> ResponseError { ResponseError(code: invalidParams, message: message) }
}

/// A body that is not a usable message: the error to answer with, and
/// the id to answer to when the body had one.
package struct MessageError: Error, Sendable {
    package var id: RequestID?
    package var error: ResponseError
}

/// One message of JSON-RPC 2.0.
package enum Message: Sendable {
    case request(id: RequestID, method: String, params: JSONDocument)
    case notification(method: String, params: JSONDocument)
    case response(id: RequestID?, result: Result<JSONDocument, ResponseError>)

    /// The message in a body; an error response's error when it is not
    /// one (with the id, when the body had a usable one).
    package static func parse(_ body: [UInt8]) -> Result<Message, MessageError> {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(body)
        } catch {
            return .failure(MessageError(id: nil, error: ResponseError(code: ResponseError.parseError, message: "the message is not JSON: \(error)")))
        }
        guard case .object(let object) = document else {
            return .failure(
                MessageError(id: nil, error: ResponseError(code: ResponseError.invalidRequest, message: "a message must be a JSON object")))
        }
        var id: RequestID?
        switch object["id"] {
        case .number(let number)?:
            guard let value = number.integerValue else {
                return .failure(
                    MessageError(id: nil, error: ResponseError(code: ResponseError.invalidRequest, message: "an id must be an integer or a string")))
            }
            id = .number(value)
        case .string(let text)?: id = .string(text)
        case nil, .null?: id = nil
        default:
            return .failure(
                MessageError(id: nil, error: ResponseError(code: ResponseError.invalidRequest, message: "an id must be an integer or a string")))
        }
        let params = object["params"] ?? .null
        if case .string(let method)? = object["method"] {
            if let id { return .success(.request(id: id, method: method, params: params)) }
            return .success(.notification(method: method, params: params))
        }
        if object["method"] != nil {
            return .failure(MessageError(id: id, error: ResponseError(code: ResponseError.invalidRequest, message: "'method' must be a string")))
        }
        if let result = object["result"] { return .success(.response(id: id, result: .success(result))) }
        if case .object(let error)? = object["error"], case .number(let code)? = error["code"], let value = code.integerValue {
            var message = ""
            if case .string(let text)? = error["message"] { message = text }
            return .success(.response(id: id, result: .failure(ResponseError(code: value, message: message))))
        }
        return .failure(
            MessageError(
                id: id, error: ResponseError(code: ResponseError.invalidRequest, message: "neither a request, a notification nor a response")))
    }
}

/// A message to send, its values built for writing.
package enum OutgoingMessage: Sendable {
    case request(id: RequestID, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: RequestID?, result: Result<JSONValue, ResponseError>)

    /// The message's JSON body.
    package var body: [UInt8] {
        var members: [(String, JSONValue)] = [("jsonrpc", .string("2.0"))]
        switch self {
        case .request(let id, let method, let params):
            members += [("id", id.json), ("method", .string(method)), ("params", params)]
        case .notification(let method, let params):
            members += [("method", .string(method)), ("params", params)]
        case .response(let id, let result):
            members.append(("id", id?.json ?? .null))
            switch result {
            case .success(let value): members.append(("result", value))
            case .failure(let error):
                members.append(("error", .object([("code", .integer(error.code)), ("message", .string(error.message))])))
            }
        }
        return Array(JSONValue.object(members).renderedCompact().utf8)
    }
}
