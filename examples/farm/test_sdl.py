"""SDL scenarios beside a suite's other bench tests (docs/farm.md, section 6)."""


def test_hello(sdl_run):
    result = sdl_run("examples/hello.json")
    assert result.passed, f"see {result.folder}/console.log"


def test_menu(sdl_run):
    assert sdl_run("examples/menu.json").passed
