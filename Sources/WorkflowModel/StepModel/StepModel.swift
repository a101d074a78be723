import PromiseEngine

/// The steps' data, described once and generic over its text: with
/// `Template` it is a step as written (text may interpolate `{{ }}`); with
/// `String` it is a step as a step runner gets it, every template evaluated.
/// The language builds the first, the resolver (WorkflowRun's `Resolve/`,
/// the only place a template is evaluated) maps it to the second with
/// `map`, and `Steps` sees only the second.
@usableFromInline
package enum StepModel<Text: StepText> {}

/// The text of a step: a `Template` as written, or a `String` once resolved.
@usableFromInline
package protocol StepText: Sendable, Hashable {
    /// The text for people: a template's expressions shown as `{{...}}`,
    /// nothing escaped.
    var displayText: String { get }
    /// The text as it would be written between `"` quotes in a workflow.
    var sourceText: String { get }
}

extension Template: StepText {}

extension String: StepText {
    /// The string itself.
    @usableFromInline
    package var displayText: String { self }
    /// The string escaped as a workflow's `"..."` would hold it.
    @usableFromInline
    package var sourceText: String { escapedForTemplate() }
}

// As written: the language builds these, renderers and the checker read them.

/// A step as written.
package typealias Step = StepModel<Template>.Step
/// `sh` and `exec` options as written.
package typealias ProcessOptions = StepModel<Template>.ProcessOptions
/// An `http` step as written.
package typealias HTTPRequest = StepModel<Template>.HTTPRequest
/// An `http` step's TLS attributes as written.
package typealias HTTPTLSOptions = StepModel<Template>.HTTPTLSOptions
/// An http step's transport attributes as written.
package typealias HTTPTransportOptions = StepModel<Template>.HTTPTransportOptions
/// `basic-auth` as written.
package typealias BasicAuth = StepModel<Template>.BasicAuth
/// A header, query parameter or form field as written.
package typealias NamedTemplate = StepModel<Template>.Named
/// A multipart part as written.
package typealias MultipartPart = StepModel<Template>.MultipartPart
/// A request body as written.
package typealias HTTPBody = StepModel<Template>.HTTPBody
/// A `file` step as written.
package typealias FileOperation = StepModel<Template>.FileOperation
/// An expectation as written.
package typealias StepExpectation = StepModel<Template>.StepExpectation
/// A text predicate as written.
package typealias TextPredicate = StepModel<Template>.TextPredicate
/// An `expect json` test as written.
package typealias JSONCheck = StepModel<Template>.JSONCheck
/// An `expect json` comparison's right-hand side as written.
package typealias JSONLiteral = StepModel<Template>.JSONLiteral

// Resolved: what a step runner gets; no template is left.

/// A step with every template evaluated: what `StepRunner.run` gets.
package typealias ResolvedStep = StepModel<String>.Step
/// `sh` and `exec` options, resolved.
package typealias ResolvedProcessOptions = StepModel<String>.ProcessOptions
/// An `http` step, resolved.
package typealias ResolvedHTTPRequest = StepModel<String>.HTTPRequest
/// An `http` step's TLS attributes, resolved.
package typealias ResolvedTLSOptions = StepModel<String>.HTTPTLSOptions
/// `basic-auth`, resolved.
package typealias ResolvedBasicAuth = StepModel<String>.BasicAuth
/// A header, query parameter or form field, resolved.
package typealias NamedText = StepModel<String>.Named
/// A multipart part, resolved.
package typealias ResolvedMultipartPart = StepModel<String>.MultipartPart
/// A request body, resolved.
package typealias ResolvedBody = StepModel<String>.HTTPBody
/// A `file` step, resolved.
package typealias ResolvedFileOperation = StepModel<String>.FileOperation
/// An expectation, resolved.
package typealias ResolvedExpectation = StepModel<String>.StepExpectation
/// A text predicate, resolved.
package typealias ResolvedTextPredicate = StepModel<String>.TextPredicate
/// An `expect json` test, resolved.
package typealias ResolvedJSONCheck = StepModel<String>.JSONCheck
/// An `expect json` comparison's right-hand side, resolved.
package typealias ResolvedJSONLiteral = StepModel<String>.JSONLiteral

extension StepModel.Named where Text == Template {
    /// A literal name.
    package init(name: String, value: Template) {
        self.init(name: .literal(name), value: value)
    }
}
