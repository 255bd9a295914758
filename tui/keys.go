package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the key bindings of the listen view, built once by DefaultKeyMap. The movement
// keys act on the focused pane: the list of events, or the details of the selected one.
type KeyMap struct {
	Up          key.Binding
	Down        key.Binding
	PageUp      key.Binding
	PageDown    key.Binding
	Top         key.Binding
	Bottom      key.Binding
	Details     key.Binding // open the details and focus them; close them from the details
	Focus       key.Binding // move the focus between the list and the open details
	Back        key.Binding // close the details
	Answer      key.Binding // the details, scrolled to the forward's answer
	Copy        key.Binding
	CopyBody    key.Binding
	CopyHeaders key.Binding
	CopyCurl    key.Binding
	Resend      key.Binding
	Help        key.Binding
	Quit        key.Binding
}

// DefaultKeyMap is the key bindings of the listen view.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "top")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "bottom")),
		Details:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Focus:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "list/details")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
		Answer:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "answer")),
		Copy:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy event id")),
		CopyBody:    key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "copy body")),
		CopyHeaders: key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "copy headers")),
		CopyCurl:    key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "copy curl")),
		Resend:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resend")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help of the list (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	move := key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓", "move"))
	cp := key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy id"))
	return []key.Binding{move, k.Details, k.Answer, cp, k.Resend, k.Help, k.Quit}
}

// FullHelp is the help shown with ? (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Details, k.Focus, k.Back, k.Answer}, {k.Copy, k.CopyBody, k.CopyHeaders, k.CopyCurl}, {k.Resend, k.Help, k.Quit}}
}

// detailsHelp is the help while the details have the focus: the movement keys scroll them.
type detailsHelp struct{ k KeyMap }

func (d detailsHelp) ShortHelp() []key.Binding {
	k := d.k
	scroll := key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓", "scroll"))
	tab := key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "list"))
	cp := key.NewBinding(key.WithKeys("b", "h", "C"), key.WithHelp("b/h/C", "copy body/hdrs/curl"))
	return []key.Binding{scroll, tab, k.Back, cp, k.Help, k.Quit}
}

func (d detailsHelp) FullHelp() [][]key.Binding { return d.k.FullHelp() }

// InspectKeyMap is the key bindings of the deliveries inspector, built once by
// DefaultInspectKeyMap. Which of them a screen offers is decided by the screen (inspectHelp).
type InspectKeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding
	Back     key.Binding
	Resend   key.Binding
	Test     key.Binding
	Toggle   key.Binding
	Rotate   key.Binding
	Filter   key.Binding
	Jump     key.Binding
	Refresh  key.Binding
	Help     key.Binding
	Quit     key.Binding
	Yes      key.Binding
	No       key.Binding
	Submit   key.Binding
	Cancel   key.Binding
}

// DefaultInspectKeyMap is the key bindings of the deliveries inspector.
func DefaultInspectKeyMap() InspectKeyMap {
	return InspectKeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Resend:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resend")),
		Test:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "send test")),
		Toggle:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "enable/disable")),
		Rotate:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "rotate secret")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Jump:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to id")),
		Refresh:  key.NewBinding(key.WithKeys("R", "ctrl+r"), key.WithHelp("R", "refresh")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Yes:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:       key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "no")),
		Submit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}
