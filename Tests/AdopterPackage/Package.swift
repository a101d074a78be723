// swift-tools-version:6.0
// A program that adopts PromiseEngine the way another project would: it
// depends on the `PromiseEngine` product only, imports it next to
// Foundation, and writes promises as PromiseKit users do. `.ci/run` builds
// and runs it; Tests/EndToEndTests/LibrarySurfaceTests.swift checks the
// surface it sees.
//
// Another project writes, with the URL of the repository it cloned (as
// the README says), or a path to a checkout:
//   .package(url: "<this repository's URL>", from: "0.1.0")
//   .package(path: "../promise-run")
// Here the dependency is this checkout, two folders up; SwiftPM names a path
// dependency after its folder, so the product's package is that name.
import PackageDescription

let root = Context.packageDirectory + "/../.."
let rootName = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "promise-run")

let package = Package(
    name: "adopter",
    dependencies: [.package(path: root)],
    targets: [
        .executableTarget(
            name: "Adopter",
            dependencies: [.product(name: "PromiseEngine", package: rootName)]
        )
    ]
)
