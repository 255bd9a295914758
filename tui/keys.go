package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the key bindings of the listen view, built once by DefaultKeyMap.
type KeyMap struct {
	Up      key.Binding
	Down    key.Binding
	Details key.Binding
	Copy    key.Binding
	Resend  key.Binding
	Help    key.Binding
	Quit    key.Binding
}

// DefaultKeyMap is the key bindings of the listen view.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Details: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Copy:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy event id")),
		Resend:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resend")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Details, k.Copy, k.Resend, k.Help, k.Quit}
}

// FullHelp is the help shown with ? (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Details}, {k.Copy, k.Resend}, {k.Help, k.Quit}}
}
