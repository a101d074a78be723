import PromiseEngine
import WorkflowModel

/// The expectations these tests were first written with, in terms of
/// today's predicates.
extension ResolvedExpectation {
    static func contains(_ stream: Stream, _ text: String) -> ResolvedExpectation {
        .text(stream, ResolvedTextPredicate(.contains(text)))
    }

    static func matches(_ stream: Stream, _ pattern: RegexPattern) -> ResolvedExpectation {
        .text(stream, ResolvedTextPredicate(.matches(pattern)))
    }
}

extension ResolvedExpectation.HeaderCheck {
    static func contains(_ text: String) -> ResolvedExpectation.HeaderCheck {
        .text(ResolvedTextPredicate(.contains(text)))
    }

    static func matches(_ pattern: RegexPattern) -> ResolvedExpectation.HeaderCheck {
        .text(ResolvedTextPredicate(.matches(pattern)))
    }
}

extension ResolvedJSONCheck {
    static var exists: ResolvedJSONCheck { .exists(negated: false) }
}
