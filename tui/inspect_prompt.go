package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// promptKind tells what a prompt asks.
type promptKind int

const (
	promptConfirm promptKind = iota // y or n, before an action that changes something
	promptFilter                    // the deliveries filter
	promptJump                      // an event or object id to go to
)

// prompt is the question on the status line. While it is open it receives every key.
type prompt struct {
	kind     promptKind
	question string
	value    []rune
	// For promptConfirm: the status shown while the action runs, and the action.
	busy string
	run  tea.Cmd
}

// edit applies a key to the text of an input prompt. It answers false for keys it does not
// take (enter, esc, moves).
func (p *prompt) edit(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		p.value = append(p.value, msg.Runes...)
	case tea.KeyBackspace:
		if len(p.value) > 0 {
			p.value = p.value[:len(p.value)-1]
		}
	case tea.KeyCtrlU:
		p.value = nil
	case tea.KeyCtrlW:
		v := p.value
		for len(v) > 0 && v[len(v)-1] == ' ' {
			v = v[:len(v)-1]
		}
		for len(v) > 0 && v[len(v)-1] != ' ' {
			v = v[:len(v)-1]
		}
		p.value = v
	default:
		return false
	}
	return true
}

func (p prompt) text() string { return string(p.value) }
