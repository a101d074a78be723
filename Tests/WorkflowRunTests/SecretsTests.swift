import Testing
import WorkflowTestSupport

@testable import WorkflowLanguage
@testable import WorkflowModel
@testable import WorkflowRun

/// `Secrets.mask`: every form of a secret, and the piece of one a cut left.
@Suite("Secrets")
struct SecretsTests {
    private func secrets(_ values: String...) -> Secrets {
        let secrets = Secrets()
        for value in values { secrets.add(value) }
        return secrets
    }

    @Test("whole secrets and their encoded forms are masked")
    func wholeForms() {
        let secrets = secrets("s3cr3t value")
        #expect(secrets.mask("a s3cr3t value b") == "a *** b")
        #expect(secrets.mask("q=s3cr3t%20value") == "q=***")
        #expect(secrets.mask("'s3cr3t value'") == "'***'")
    }

    @Test("the start of a secret before a cut, and its end after one, are masked")
    func piecesAtCuts() {
        let secrets = secrets("ghp_AAAABBBBCCCC")
        #expect(secrets.mask("body: \"abc ghp_AAA\"…") == "body: \"abc ***\"…")
        #expect(secrets.mask("abc ghp_AAAABBB…") == "abc ***…")
        #expect(secrets.mask("…\"BBCCCC rest\"") == "…\"*** rest\"")
        #expect(secrets.mask("…BCCCC") == "…***")
        // Both sides of one cut, and two cuts.
        #expect(secrets.mask("ghp_AA… and …CCCC") == "***… and …***")
    }

    @Test("pieces shorter than four characters, and text away from a cut, stay")
    func shortPiecesStay() {
        let secrets = secrets("ghp_AAAABBBBCCCC")
        #expect(secrets.mask("ghp…") == "ghp…")
        #expect(secrets.mask("ghp_AAAA and more") == "ghp_AAAA and more")
        #expect(secrets.mask("nothing…here") == "nothing…here")
        #expect(secrets.mask("…") == "…")
    }
}
