import PromiseEngine

print("promise-run \(PromiseRunVersion.current)")
