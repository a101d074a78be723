import JSON
import Testing
import WorkflowModel

@testable import Steps

@Suite("Hurl's predicates on JSON values")
struct ValuePredicatesTests {
    private func holds(_ predicate: ValuePredicate, _ json: String) throws -> Bool {
        ValuePredicates.holds(predicate, for: try JSONDocument.parse(json))
    }

    @Test(arguments: [
        (ValuePredicate.isUuid, #""123e4567-e89b-12d3-A456-426614174000""#, true),
        (.isUuid, #""123e4567-e89b-12d3-a456-42661417400""#, false),
        (.isUuid, #""123e4567e89b12d3a456426614174000""#, false),
        (.isIsoDate, #""2026-01-31T12:00:00Z""#, true),
        (.isIsoDate, #""2026-01-31T12:00:00.123+02:00""#, true),
        (.isIsoDate, #""2026-01-31""#, false),
        (.isIsoDate, #""2026-01-31T12:00:00""#, false),
        (.isIpv4, #""192.168.0.1""#, true),
        (.isIpv4, #""256.1.1.1""#, false),
        (.isIpv4, #""01.1.1.1""#, false),
        (.isIpv6, #""::1""#, true),
        (.isIpv6, #""2001:db8::8a2e:370:7334""#, true),
        (.isIpv6, #""::ffff:192.0.2.1""#, true),
        (.isIpv6, #""1:2:3:4:5:6:7:8""#, true),
        (.isIpv6, #""1:2:3:4:5:6:7""#, false),
        (.isIpv6, #""1::2::3""#, false),
        (.isIpv6, #""12345::1""#, false),
        (.isNumber, "1.5", true),
        (.isNumber, #""1""#, false),
        (.isString, #""""#, true),
        (.isBoolean, "false", true),
        (.isList, "[]", true),
        (.isObject, "{}", true),
        (.isObject, "[]", false),
        (.isEmpty, #""""#, true),
        (.isEmpty, "[]", true),
        (.isEmpty, "{}", true),
        (.isEmpty, "[0]", false),
        (.isEmpty, "0", false),
        (.isUuid, "1", false),
    ])
    func predicates(_ predicate: ValuePredicate, _ json: String, _ expected: Bool) throws {
        #expect(try holds(predicate, json) == expected)
    }
}
