import PromiseEngine
import WorkflowModel

/// The expectations these tests were first written with, in terms of
/// today's predicates.
extension StepExpectation {
    static func contains(_ stream: Stream, _ text: Template) -> StepExpectation {
        .text(stream, TextPredicate(.contains(text)))
    }

    static func matches(_ stream: Stream, _ pattern: RegexPattern) -> StepExpectation {
        .text(stream, TextPredicate(.matches(pattern)))
    }
}

extension StepExpectation.HeaderCheck {
    static func contains(_ text: Template) -> StepExpectation.HeaderCheck {
        .text(TextPredicate(.contains(text)))
    }

    static func matches(_ pattern: RegexPattern) -> StepExpectation.HeaderCheck {
        .text(TextPredicate(.matches(pattern)))
    }
}

extension JSONCheck {
    static var exists: JSONCheck { .exists(negated: false) }
}
